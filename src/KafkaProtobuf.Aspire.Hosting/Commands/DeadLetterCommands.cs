using System;
using System.Globalization;
using System.Text;
using System.Threading.Tasks;
using Aspire.Hosting.ApplicationModel;
using Confluent.Kafka;
using KafkaProtobuf.Redrive;

namespace KafkaProtobuf.Aspire.Hosting.Commands;

/// <summary>
/// The dashboard's "Dead letters" and "Redrive dead letters", both through the library's dead-letter reading and its
/// store of <see cref="RedrivePlans"/>: the first shows the topic's newest dead letters grouped by kind of failure and
/// makes a plan (a dry run: each dead letter a redrive would touch and what it would do); the second runs the last plan
/// of that topic, exactly what it showed, once (a run that stopped resumes when run again), so nothing is written
/// unseen. Dead letters are verified, and redrives signed, with the resource's keys (<c>WithProvenanceKeys</c>).
/// </summary>
internal sealed class DeadLetterCommands(EmbeddedKafkaResource kafka)
{
    public const string ListName = "kafkaprotobuf-dead-letters";
    public const string RedriveName = "kafkaprotobuf-redrive-dead-letters";

    /// <summary>The newest dead letters shown by failure; the counts cover every dead letter.</summary>
    private const int WindowRecords = 50;

    private readonly RedrivePlans _plans = new();

    public static CommandOptions ListOptions() => new()
    {
        Description = "The topic's newest dead letters grouped by kind of failure, and a dry run of a redrive: each dead letter waiting (its source, error code and component) and what a redrive would do with it. Writes and commits nothing.",
        Arguments = CommandArguments.Text(("topic", "Dead-letter topic", "The dead-letter topic to read.")),
        IconName = "DocumentSearch",
        UpdateState = CommandArguments.EnabledWhileRunning,
    };

    public static CommandOptions RedriveOptions() => new()
    {
        Description = "Writes the dead letters the last \"Dead letters\" of the topic showed back to their source topics, byte for byte, once. Run \"Dead letters\" (the dry run) on the topic first.",
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

        var text = new StringBuilder();
        using (var reader = new DeadLetterTopicReader(config!, kafka.ProvenanceKeys))
        {
            DeadLetterWindow? window = await reader.ReadWindowAsync(topic!, null, WindowRecords, context.CancellationToken).ConfigureAwait(false);
            if (window is null)
            {
                return CommandResults.Failure("The topic " + Shown(topic!) + " does not exist.");
            }

            text.Append("The newest ").Append(window.DeadLetters.Count.ToString(CultureInfo.InvariantCulture)).Append(" of ")
                .Append(window.Total.ToString(CultureInfo.InvariantCulture)).Append(", by kind of failure:\n");
            foreach (DeadLetterGroup group in window.Groups)
            {
                text.Append("  ").Append(group.DeadLetters.Count.ToString(CultureInfo.InvariantCulture)).Append(" × ")
                    .Append(BoundedText.Cut(group.ErrorCode ?? "(no error code)", 100)).Append(" (").Append(BoundedText.Cut(group.Component ?? "?", 20)).Append(") ")
                    .Append(BoundedText.Cut(group.Pattern, 200)).Append('\n');
                if (group.DeadLetters.Count > 1 || group.Example != group.Pattern)
                {
                    text.Append("      e.g. ").Append(BoundedText.Cut(group.Example, 200)).Append('\n');
                }
            }
        }

        var options = new global::KafkaProtobuf.Redrive.RedriveOptions { DeadLetterTopic = topic!, ProvenanceKeys = kafka.ProvenanceKeys };
        RedrivePlan plan = await _plans.PlanAsync(config!, options, context.CancellationToken).ConfigureAwait(false);
        text.Append("\nA redrive would:\n");
        foreach (RedrivePlanEntry entry in plan.DeadLetters)
        {
            text.Append(Describe(entry)).Append('\n');
        }

        if (plan.HasMoreDeadLetters)
        {
            text.Append("… and more (the first ").Append(RedrivePlan.MaxListedDeadLetters.ToString(CultureInfo.InvariantCulture)).Append(" are listed)\n");
        }

        return CommandResults.Success(Shown(topic!) + ": " + plan.DryRun + ".", text.ToString(), CommandResultFormat.Text);
    }

    public async Task<ExecuteCommandResult> RedriveAsync(ExecuteCommandContext context)
    {
        if (Arguments(context, out string? topic, out _) is { } refused)
        {
            return refused;
        }

        RedrivePlan? plan = _plans.Latest(topic);
        RedriveRefusal refusal = plan?.Refusal ?? RedriveRefusal.NoPlan;
        if (refusal != RedriveRefusal.None)
        {
            return CommandResults.Failure(Shown(topic!) + ": " + RedriveOutcomes.Describe(refusal) + (refusal is RedriveRefusal.NoPlan or RedriveRefusal.Completed ? " Run \"Dead letters\" on it (the dry run) first." : string.Empty));
        }

        RedriveSummary summary;
        try
        {
            summary = await plan!.RunAsync(context.CancellationToken).ConfigureAwait(false);
        }
        catch (InvalidOperationException e)
        {
            return CommandResults.Failure(Shown(topic!) + ": " + e.Message); // refused meanwhile: worded as Refusal is
        }

        string shown = Shown(topic!);
        context.Logger.LogRedrive(shown, summary.Written, summary.Failed);
        string counts = summary + " (the dry run showed " + plan.DryRun.Written.ToString(CultureInfo.InvariantCulture) + " to write).";
        return plan.State == RedrivePlanState.Completed
            ? CommandResults.Success("Redrive of " + shown + ": " + counts)
            : CommandResults.Failure("Redrive of " + shown + " stopped: " + counts + " " + BoundedText.Cut(summary.Failure) + " Run it again to resume.");
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

    /// <summary>One dead letter of a plan as a line: every field from Kafka made inert and cut.</summary>
    private static string Describe(RedrivePlanEntry entry) =>
        "  offset " + entry.Position.Offset.Value.ToString(CultureInfo.InvariantCulture)
            + "  from " + BoundedText.Cut(entry.DescribeSource(), 300)
            + "  " + BoundedText.Cut(entry.ErrorCode ?? "(no error code)", 100)
            + " (" + BoundedText.Cut(entry.Component ?? "?", 20) + ")"
            + "  → " + RedriveOutcomes.Describe(entry.Outcome, dryRun: true);

    private static string Shown(string topic) => "'" + BoundedText.Cut(topic, 250) + "'";
}
