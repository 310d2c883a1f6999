namespace KafkaProtobuf.Redrive;

/// <summary>
/// Headers a redrive adds to each record it writes back, after the record's original headers (values UTF-8 text), so
/// that a record that fails again is recognisable in the dead-letter topic and not redriven past
/// <see cref="RedriveOptions.MaxRedrives"/>. A record redriven again carries only the newest set.
/// </summary>
public static class RedriveHeaderNames
{
    /// <summary>How many times the record has been redriven, this time included (<c>1</c> the first time).</summary>
    public const string Count = "kafkaprotobuf.redrive.count";

    /// <summary>When it was redriven, ISO 8601 in UTC.</summary>
    public const string Time = "kafkaprotobuf.redrive.time";

    /// <summary>The run that redrove it (<see cref="RedriveOptions.RunId"/>).</summary>
    public const string Run = "kafkaprotobuf.redrive.run";

    /// <summary>What every header this package adds starts with; the original headers are those before the first of them.</summary>
    internal const string PackagePrefix = "kafkaprotobuf.";

    internal const string Prefix = "kafkaprotobuf.redrive.";
}
