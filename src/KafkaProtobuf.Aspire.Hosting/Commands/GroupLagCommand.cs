using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Text;
using System.Threading.Tasks;
using Aspire.Hosting.ApplicationModel;
using Confluent.Kafka;
using KafkaProtobuf.Lag;

namespace KafkaProtobuf.Aspire.Hosting.Commands;

/// <summary>The dashboard's "Group lag": per partition a group's committed offset, the end, the lag and the owner; reads only, never joins the group.</summary>
internal static class GroupLagCommand
{
    public const string Name = "kafkaprotobuf-group-lag";

    public static CommandOptions Options() => new()
    {
        Description = "A consumer group's lag per partition: committed offset, end, lag and owner. Reads only: never joins the group or commits.",
        Arguments = CommandArguments.Text(("group", "Group", "The consumer group's id.")),
        IconName = "ArrowTrending",
        UpdateState = CommandArguments.EnabledWhileRunning,
    };

    public static async Task<ExecuteCommandResult> ExecuteAsync(EmbeddedKafkaResource kafka, ExecuteCommandContext context)
    {
        string? group = CommandArguments.Value(context, "group");
        if (group is null)
        {
            return CommandResults.Failure("Give the group's id.");
        }

        if (kafka.Cluster is not { } cluster)
        {
            return CommandResults.Failure("The cluster is not running.");
        }

        var config = new ClientConfig { BootstrapServers = cluster.BootstrapServers };
        try
        {
            ConsumerGroupLag lag = await ConsumerGroupLag.MeasureAsync(config, group, [], context.CancellationToken).ConfigureAwait(false);
            var text = new StringBuilder(lag.ToTable());
            if (lag.OwnersUnknownReason is { } ownersUnknown)
            {
                text.Append("owners not shown: ").Append(BoundedText.Cut(ownersUnknown)).Append('\n');
            }

            if (lag.NothingCommittedWarning is { } nothing)
            {
                text.Append(nothing).Append('\n');
            }

            int count = lag.Partitions.Count;
            string summary = "Group '" + BoundedText.Cut(group, 250) + "': total lag " + lag.TotalLag.ToString(CultureInfo.InvariantCulture)
                + " over " + count.ToString(CultureInfo.InvariantCulture) + (count == 1 ? " partition" : " partitions") + "."
                + (lag.NothingCommittedWarning is null ? string.Empty : " It has no committed offsets: no such group, or it has not committed yet.");
            return CommandResults.Success(summary, text.ToString(), CommandResultFormat.Text);
        }
        catch (KafkaException e)
        {
            return CommandResults.Failure("Kafka could not be asked: " + BoundedText.Cut(e.Error.Reason));
        }
    }
}
