namespace KafkaProtobuf.Tool.Commands;

/// <summary>The tool's exit codes.</summary>
internal static class ExitCodes
{
    /// <summary>Done, or stopped by Ctrl+C once it had stopped cleanly; bad records may have been shown (they do not fail the run without --fail-on-error).</summary>
    public const int Ok = 0;

    /// <summary>Bad records were seen and --fail-on-error was given (or frame was given a bad frame).</summary>
    public const int BadRecords = 1;

    /// <summary>The command line is wrong: unknown option, missing value, a file that cannot be read.</summary>
    public const int Usage = 2;

    /// <summary>Kafka or the Schema Registry could not be reached or refused the request.</summary>
    public const int ConnectionFailure = 3;

    /// <summary>Ctrl+C or SIGTERM, and the command did not finish its work or did not stop within --stop-timeout (128 + SIGINT, as shells report it).</summary>
    public const int Interrupted = 130;
}
