using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using Confluent.Kafka.Admin;

namespace KafkaProtobuf.Shared;

/// <summary>
/// A consumer group's lag, read without joining the group or committing: per partition the committed offset, the end,
/// the lag and the member that owns it. Shared as source by the tool's <c>lag</c> command and the Aspire Kafka
/// resource's dashboard command.
/// </summary>
internal static class GroupLag
{
    private static readonly TimeSpan RequestTimeout = TimeSpan.FromSeconds(30);

    /// <summary>
    /// The group's partitions of <paramref name="topics"/> (none: every topic it has committed offsets for), in topic
    /// and partition order. <paramref name="config"/> names the group; it is never joined. Blocking.
    /// </summary>
    /// <exception cref="KafkaException">Kafka cannot be asked, or a topic named does not exist.</exception>
    public static List<PartitionLagRow> Measure(ConsumerConfig config, IReadOnlyCollection<string> topics, CancellationToken cancellationToken, out string? ownersUnknown)
    {
        using IConsumer<byte[], byte[]> consumer = new ConsumerBuilder<byte[], byte[]>(config).Build();
        using IAdminClient admin = new DependentAdminClientBuilder(consumer.Handle).Build();
        List<TopicPartition> partitions;
        if (topics.Count > 0)
        {
            Metadata metadata = admin.GetMetadata(RequestTimeout);
            partitions = topics.SelectMany(t => metadata.Topics.FirstOrDefault(m => m.Topic == t && !m.Error.IsError)?.Partitions.Select(p => new TopicPartition(t, p.PartitionId))
                ?? throw new KafkaException(new Error(ErrorCode.UnknownTopicOrPart, "the topic '" + t + "' does not exist"))).ToList();
        }
        else
        {
            // Every partition of every topic, kept where the group has committed: what any broker answers (the mock
            // cluster does not list a group's offsets).
            partitions = admin.GetMetadata(RequestTimeout).Topics
                .Where(t => !t.Error.IsError && !t.Topic.StartsWith("__", StringComparison.Ordinal))
                .SelectMany(t => t.Partitions.Select(p => new TopicPartition(t.Topic, p.PartitionId)))
                .ToList();
            partitions = consumer.Committed(partitions, RequestTimeout).Where(c => c.Offset.Value >= 0).Select(c => c.TopicPartition).ToList();
        }

        Dictionary<TopicPartition, long> committed = consumer.Committed(partitions, RequestTimeout).ToDictionary(c => c.TopicPartition, c => c.Offset.Value);
        Dictionary<TopicPartition, string> owners = Owners(admin, config.GroupId, cancellationToken, out ownersUnknown);
        return partitions
            .OrderBy(p => p.Topic, StringComparer.Ordinal).ThenBy(p => p.Partition.Value)
            .Select(p =>
            {
                long end = consumer.QueryWatermarkOffsets(p, RequestTimeout).High.Value;
                long? at = committed.TryGetValue(p, out long offset) && offset >= 0 ? offset : null;
                return new PartitionLagRow(p.Topic, p.Partition.Value, at, end, at is long c ? Math.Max(0, end - c) : null, owners.TryGetValue(p, out string? owner) ? owner : null);
            })
            .ToList();
    }

    /// <summary>
    /// The rows as a tab-separated table with a header line, and a line with the total lag; topic and owner names (a
    /// broker's and a client's text) through <paramref name="inert"/>.
    /// </summary>
    public static string Table(IReadOnlyList<PartitionLagRow> rows, Func<string, string> inert)
    {
        var text = new StringBuilder();
        text.Append("TOPIC\tPARTITION\tCOMMITTED\tEND\tLAG\tOWNER\n");
        foreach (PartitionLagRow row in rows)
        {
            text.Append(inert(row.Topic)).Append('\t').Append(row.Partition.ToString(CultureInfo.InvariantCulture)).Append('\t')
                .Append(row.Committed?.ToString(CultureInfo.InvariantCulture) ?? "-").Append('\t')
                .Append(row.End.ToString(CultureInfo.InvariantCulture)).Append('\t')
                .Append(row.Lag?.ToString(CultureInfo.InvariantCulture) ?? "-").Append('\t')
                .Append(inert(row.Owner ?? "-")).Append('\n');
        }

        text.Append("total lag ").Append(rows.Sum(r => r.Lag ?? 0).ToString(CultureInfo.InvariantCulture))
            .Append(" over ").Append(rows.Count.ToString(CultureInfo.InvariantCulture)).Append(rows.Count == 1 ? " partition" : " partitions")
            .Append(rows.Any(r => r.Committed is null) ? " (partitions without a committed offset not counted)" : string.Empty).Append('\n');
        return text.ToString();
    }

    /// <summary>
    /// What to say when none of the rows has a committed offset: a mistyped group reads as a group with nothing to lag,
    /// and "total lag 0" would look healthy. Null when some partition has one.
    /// </summary>
    public static string? NothingCommitted(IReadOnlyList<PartitionLagRow> rows, string group, Func<string, string> inert) =>
        rows.Any(r => r.Committed is not null)
            ? null
            : "group '" + inert(group) + "' has no committed offsets" + (rows.Count == 0 ? string.Empty : " on these topics")
                + ": no such group (check its name), or it has not committed yet (a new group starts where its auto.offset.reset says: librdkafka's default is latest)";

    /// <summary>Each assigned partition's member, as "client.id host" (the first member named, should two claim one mid-rebalance).</summary>
    public static Dictionary<TopicPartition, string> OwnersOf(IEnumerable<ConsumerGroupDescription> groups) =>
        groups.SelectMany(g => g.Members ?? [])
            .SelectMany(m => (m.Assignment?.TopicPartitions ?? []).Select(p => (p, Owner: (m.ClientId + " " + m.Host).Trim())))
            .GroupBy(x => x.p).ToDictionary(g => g.Key, g => g.First().Owner);

    /// <summary>Who owns each partition now; none when the group has no members, or when the brokers do not say (<paramref name="ownersUnknown"/>: why).</summary>
    private static Dictionary<TopicPartition, string> Owners(IAdminClient admin, string group, CancellationToken cancellationToken, out string? ownersUnknown)
    {
        ownersUnknown = null;
        try
        {
            DescribeConsumerGroupsResult described = admin.DescribeConsumerGroupsAsync([group]).WaitAsync(RequestTimeout, cancellationToken).GetAwaiter().GetResult();
            return OwnersOf(described.ConsumerGroupDescriptions);
        }
        catch (Exception e) when (e is KafkaException or TimeoutException)
        {
            ownersUnknown = e.Message;
            return [];
        }
    }
}

/// <summary>One partition of a group's lag; <see cref="Committed"/> and <see cref="Lag"/> are null where the group has not committed.</summary>
internal sealed record PartitionLagRow(string Topic, int Partition, long? Committed, long End, long? Lag, string? Owner);
