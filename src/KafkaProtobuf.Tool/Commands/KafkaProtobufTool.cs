using System;
using System.CommandLine;
using System.IO;
using System.Threading.Tasks;

namespace KafkaProtobuf.Tool.Commands;

/// <summary>The command tree and how it is parsed and run, apart from <c>Main</c> so tests can look at it.</summary>
internal static class KafkaProtobufTool
{
    /// <summary>How long a command may take to stop cleanly after Ctrl+C before the tool quits anyway.</summary>
    public static Option<double> StopTimeout { get; } = CreateStopTimeout();

    /// <summary>
    /// Parsing without response files: System.CommandLine would otherwise splice the contents of any <c>@name</c> token
    /// into the command line, so <c>frame @record.bin</c> would never see its file.
    /// </summary>
    public static ParserConfiguration ParserConfiguration { get; } = new() { ResponseFileTokenReplacer = null };

    public static RootCommand CreateRootCommand(TextWriter output, TextWriter error) =>
        new("kafka-protobuf: look inside Kafka records in Confluent Schema Registry framing (Protobuf), decoded from the writer's schema without generated classes. Ctrl+C stops a command cleanly; a second Ctrl+C quits at once. Exit codes: 0 ok, 1 bad records (with --fail-on-error) or an incompatible schema (schema check, schema register), 2 usage, 3 Kafka or registry unreachable (or a redrive's write failed), 130 interrupted.")
        {
            FrameCommand.Create(output, error),
            ConsumeCommand.Create(output, error),
            SchemaCommand.Create(output, error),
            DeadLettersCommand.Create(output, error),
            LagCommand.Create(output, error),
            StopTimeout,
        };

    /// <summary>Parses and runs a command line: the exit code. Whatever reaches <paramref name="error"/> is neutralized for a terminal.</summary>
    public static async Task<int> RunAsync(string[] args, TextWriter output, TextWriter error)
    {
        error = new Output.NeutralizingWriter(error);
        RootCommand root = CreateRootCommand(output, error);
        ParseResult parsed = root.Parse(args, ParserConfiguration);
        if (parsed.Errors.Count > 0)
        {
            foreach (System.CommandLine.Parsing.ParseError e in parsed.Errors)
            {
                await error.WriteLineAsync("kafka-protobuf: " + e.Message).ConfigureAwait(false);
            }

            await error.WriteLineAsync("Try 'kafka-protobuf --help'.").ConfigureAwait(false);
            return ExitCodes.Usage;
        }

        // The tool handles Ctrl+C itself (StopSignals), so System.CommandLine's handler is off.
        var invocation = new InvocationConfiguration { Output = output, Error = error, ProcessTerminationTimeout = null };
        using var signals = new StopSignals(error);
        return await signals.RunAsync(
            cancellationToken => parsed.InvokeAsync(invocation, cancellationToken),
            TimeSpan.FromSeconds(parsed.GetValue(StopTimeout))).ConfigureAwait(false);
    }

    private static Option<double> CreateStopTimeout()
    {
        var option = new Option<double>("--stop-timeout")
        {
            Description = "After Ctrl+C, how many seconds a command may take to stop cleanly (closing its Kafka client, finishing a line of output) before the tool quits anyway with exit code 130.",
            DefaultValueFactory = _ => 5,
            HelpName = "seconds",
            Recursive = true,
        };
        option.Validators.Add(result =>
        {
            if (result.GetValueOrDefault<double>() is < 0 or > 3600 or double.NaN)
            {
                result.AddError("--stop-timeout must be between 0 and 3600 seconds.");
            }
        });
        return option;
    }
}
