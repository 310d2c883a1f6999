using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Text;
using System.Threading.Tasks;
using Aspire.Hosting.ApplicationModel;
using Confluent.Kafka;
using KafkaProtobuf.Shared;

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

        var config = new ConsumerConfig { BootstrapServers = cluster.BootstrapServers, GroupId = group, EnableAutoCommit = false, AllowAutoCreateTopics = false };
        try
        {
            string? ownersUnknown = null;
            List<PartitionLagRow> rows = await Task.Run(() => GroupLag.Measure(config, [], context.CancellationToken, out ownersUnknown), context.CancellationToken).ConfigureAwait(false);
            long total = rows.Sum(r => r.Lag ?? 0);
            var text = new StringBuilder(GroupLag.Table(rows, name => BoundedText.Cut(name, 250)));
            if (ownersUnknown is not null)
            {
                text.Append("owners not shown: ").Append(BoundedText.Cut(ownersUnknown)).Append('\n');
            }

            string? nothing = GroupLag.NothingCommitted(rows, group, name => BoundedText.Cut(name, 250));
            if (nothing is not null)
            {
                text.Append(nothing).Append('\n');
            }

            string summary = "Group '" + BoundedText.Cut(group, 250) + "': total lag " + total.ToString(CultureInfo.InvariantCulture)
                + " over " + rows.Count.ToString(CultureInfo.InvariantCulture) + (rows.Count == 1 ? " partition" : " partitions") + "."
                + (nothing is null ? string.Empty : " It has no committed offsets: no such group, or it has not committed yet.");
            return CommandResults.Success(summary, text.ToString(), CommandResultFormat.Text);
        }
        catch (KafkaException e)
        {
            return CommandResults.Failure("Kafka could not be asked: " + BoundedText.Cut(e.Error.Reason));
        }
    }
}
