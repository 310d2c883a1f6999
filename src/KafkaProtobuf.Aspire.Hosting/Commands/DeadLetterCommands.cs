using System;
using System.Collections.Concurrent;
using System.Globalization;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Aspire.Hosting.ApplicationModel;
using Confluent.Kafka;
using KafkaProtobuf.Redrive;

namespace KafkaProtobuf.Aspire.Hosting.Commands;

/// <summary>
/// The dashboard's "Dead letters" and "Redrive dead letters", both through <see cref="DeadLetterRedrive"/>: the first
/// is a dry run that lists what is waiting and what a redrive would do with each; the second writes them back to their
/// source topics, and only after a dry run of the same topic (one per redrive), so nothing is written unseen.
/// </summary>
internal sealed class DeadLetterCommands(EmbeddedKafkaResource kafka)
{
    public const string ListName = "kafkaprotobuf-dead-letters";
    public const string RedriveName = "kafkaprotobuf-redrive-dead-letters";

    /// <summary>Lines listed at most; the counts cover every dead letter.</summary>
    private const int MaxLines = 200;

    private readonly ConcurrentDictionary<string, long> _listed = new(StringComparer.Ordinal);
    private int _redriving;

    public static CommandOptions ListOptions() => new()
    {
        Description = "A dry run of a redrive: each dead letter waiting in the topic (its source, error code and component) and what a redrive would do with it. Writes and commits nothing.",
        Arguments = CommandArguments.Text(("topic", "Dead-letter topic", "The dead-letter topic to read.")),
        IconName = "DocumentSearch",
        UpdateState = CommandArguments.EnabledWhileRunning,
    };

    public static CommandOptions RedriveOptions() => new()
    {
        Description = "Writes the dead letters of a topic back to their source topics, byte for byte. Run \"Dead letters\" (the dry run) on the topic first.",
        Arguments = CommandArguments.Text(("topic", "Dead-letter topic", "The dead-letter topic to redrive; list it first.")),
        ConfirmationMessage = "Write the dead letters back to their source topics? The dry run (\"Dead letters\") showed which.",
        IconName = "ArrowRedo",
        UpdateState = CommandArguments.EnabledWhileRunning,
    };

    public async Task<ExecuteCommandResult> ListAsync(ExecuteCommandContext context)
    {
        if (Arguments(context, out string? topic, out ClientConfig? config) is { } refused)
        {
            return refused;
        }

        var lines = new StringBuilder();
        int listed = 0;
        RedriveSummary summary = await DeadLetterRedrive.RunAsync(
            config!,
            new RedriveOptions { DeadLetterTopic = topic!, DryRun = true },
            (deadLetter, outcome) =>
            {
                if (++listed <= MaxLines)
                {
                    lines.Append(Describe(deadLetter, outcome)).Append('\n');
                }
            },
            context.CancellationToken).ConfigureAwait(false);
        if (listed > MaxLines)
        {
            lines.Append("… and ").Append((listed - MaxLines).ToString(CultureInfo.InvariantCulture)).Append(" more\n");
        }

        if (!summary.Completed)
        {
            return CommandResults.Failure("The dry run stopped: " + BoundedText.Cut(summary.Failure), lines.ToString(), CommandResultFormat.Text);
        }

        _listed[topic!] = summary.Written;
        return CommandResults.Success(
            Shown(topic!) + ": " + listed.ToString(CultureInfo.InvariantCulture) + " dead letter(s); a redrive would write "
                + summary.Written.ToString(CultureInfo.InvariantCulture) + " and skip " + Skipped(summary).ToString(CultureInfo.InvariantCulture) + ".",
            lines.ToString(),
            CommandResultFormat.Text);
    }

    public async Task<ExecuteCommandResult> RedriveAsync(ExecuteCommandContext context)
    {
        if (Arguments(context, out string? topic, out ClientConfig? config) is { } refused)
        {
            return refused;
        }

        if (!_listed.TryRemove(topic!, out long expected))
        {
            return CommandResults.Failure("List the dead letters of " + Shown(topic!) + " first (\"Dead letters\", a dry run): a redrive writes what it showed.");
        }

        if (Interlocked.Exchange(ref _redriving, 1) == 1)
        {
            _listed.TryAdd(topic!, expected);
            return CommandResults.Failure("A redrive is running; wait for it to finish.");
        }

        try
        {
            RedriveSummary summary = await DeadLetterRedrive.RunAsync(config!, new RedriveOptions { DeadLetterTopic = topic! }, cancellationToken: context.CancellationToken).ConfigureAwait(false);
            string counts = "wrote " + summary.Written.ToString(CultureInfo.InvariantCulture) + " (the dry run showed " + expected.ToString(CultureInfo.InvariantCulture)
                + "), skipped " + Skipped(summary).ToString(CultureInfo.InvariantCulture) + ", failed " + summary.Failed.ToString(CultureInfo.InvariantCulture) + ".";
            string shown = Shown(topic!);
            context.Logger.LogRedrive(shown, summary.Written, summary.Failed);
            return summary.Completed && summary.Failed == 0
                ? CommandResults.Success("Redrive of " + Shown(topic!) + ": " + counts)
                : CommandResults.Failure("Redrive of " + Shown(topic!) + " stopped: " + counts + " " + BoundedText.Cut(summary.Failure));
        }
        finally
        {
            Volatile.Write(ref _redriving, 0);
        }
    }

    /// <summary>The topic and a client config for the running cluster, or the reason the command cannot run.</summary>
    private ExecuteCommandResult? Arguments(ExecuteCommandContext context, out string? topic, out ClientConfig? config)
    {
        topic = CommandArguments.Value(context, "topic");
        config = kafka.Cluster is { } cluster ? new ClientConfig { BootstrapServers = cluster.BootstrapServers } : null;
        return topic is null ? CommandResults.Failure("Give the dead-letter topic.")
            : config is null ? CommandResults.Failure("The cluster is not running.")
            : null;
    }

    private static long Skipped(RedriveSummary summary) => summary.SkippedByFilter + summary.SkippedForLoops + summary.SkippedWithoutSource;

    /// <summary>One dead letter as a line: every field from Kafka made inert and cut.</summary>
    private static string Describe(DeadLetter deadLetter, RedriveOutcome outcome) =>
        "offset " + deadLetter.Record.Offset.Value.ToString(CultureInfo.InvariantCulture)
            + "  from " + (deadLetter.SourceTopic is null ? "(unknown)" : Shown(deadLetter.SourceTopic)
                + "[" + (deadLetter.SourcePartition?.ToString(CultureInfo.InvariantCulture) ?? "?") + "]@"
                + (deadLetter.SourceOffset?.ToString(CultureInfo.InvariantCulture) ?? "?"))
            + "  " + BoundedText.Cut(deadLetter.ErrorCode ?? "(no error code)", 100)
            + " (" + BoundedText.Cut(deadLetter.Component ?? "?", 20) + ")"
            + "  → " + outcome switch
            {
                RedriveOutcome.Written => "would be written back",
                RedriveOutcome.SkippedForLoops => "skipped: redriven " + deadLetter.RedriveCount.ToString(CultureInfo.InvariantCulture) + " times already",
                RedriveOutcome.SkippedWithoutSource => "skipped: no source topic in its headers",
                RedriveOutcome.SkippedByFilter => "skipped by a filter",
                _ => "would fail",
            };

    private static string Shown(string topic) => "'" + BoundedText.Cut(topic, 250) + "'";
}
