using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using Confluent.Kafka.Admin;

namespace KafkaProtobuf.Lag;

/// <summary>
/// A consumer group's lag, read without joining the group or committing anything: per partition the committed offset,
/// the end, the lag and the member that owns it, and the total. What the tool's <c>lag</c> and the dashboard's Group lag
/// show, worded once (<see cref="ToTable"/>, <see cref="NothingCommittedWarning"/>).
/// </summary>
public sealed class ConsumerGroupLag
{
    private static readonly TimeSpan RequestTimeout = TimeSpan.FromSeconds(30);

    private ConsumerGroupLag(string groupId, IReadOnlyList<PartitionLag> partitions, string? ownersUnknown)
    {
        GroupId = groupId;
        Partitions = partitions;
        OwnersUnknownReason = ownersUnknown;
        TotalLag = partitions.Sum(p => p.Lag ?? 0);
    }

    /// <summary>The group.</summary>
    public string GroupId { get; }

    /// <summary>Its partitions, in topic and partition order.</summary>
    public IReadOnlyList<PartitionLag> Partitions { get; }

    /// <summary>The lag of every partition where the group has committed.</summary>
    public long TotalLag { get; }

    /// <summary>Why owners are not shown (the brokers did not describe the group), or null.</summary>
    public string? OwnersUnknownReason { get; }

    /// <summary>
    /// What to say when no partition has a committed offset: a mistyped group reads as a group with nothing to lag, and
    /// "total lag 0" would look healthy. Null when some partition has one. Names made inert.
    /// </summary>
    public string? NothingCommittedWarning =>
        Partitions.Any(r => r.Committed is not null)
            ? null
            : "group '" + Inert(GroupId) + "' has no committed offsets" + (Partitions.Count == 0 ? string.Empty : " on these topics")
                + ": no such group (check its name), or it has not committed yet (a new group starts where its auto.offset.reset says: librdkafka's default is latest)";

    /// <summary>
    /// Measures a group's lag: the partitions of <paramref name="topics"/>, or, with none, of every topic the group has
    /// committed offsets for. Asks the brokers on a thread of the pool (librdkafka's calls block).
    /// </summary>
    /// <param name="kafka">How to reach the cluster (bootstrap servers, security). Copied; the group is never joined.</param>
    /// <param name="groupId">The consumer group.</param>
    /// <param name="topics">The topics to measure; empty: every topic the group has committed offsets for.</param>
    /// <param name="cancellationToken">Stops waiting for the group's description.</param>
    /// <returns>The lag.</returns>
    /// <exception cref="ArgumentNullException">An argument is null (thrown at the call).</exception>
    /// <exception cref="ArgumentException"><paramref name="groupId"/> is empty or white space (thrown at the call).</exception>
    /// <exception cref="KafkaException">Kafka cannot be asked, or a topic named does not exist.</exception>
    public static Task<ConsumerGroupLag> MeasureAsync(ClientConfig kafka, string groupId, IReadOnlyCollection<string> topics, CancellationToken cancellationToken = default)
    {
        if (kafka is null)
        {
            throw new ArgumentNullException(nameof(kafka));
        }

        if (groupId is null)
        {
            throw new ArgumentNullException(nameof(groupId));
        }

        if (string.IsNullOrWhiteSpace(groupId))
        {
            throw new ArgumentException("Give the consumer group's id.", nameof(groupId));
        }

        if (topics is null)
        {
            throw new ArgumentNullException(nameof(topics));
        }

        var config = new ConsumerConfig(kafka.ToDictionary(p => p.Key, p => p.Value))
        {
            GroupId = groupId,
            EnableAutoCommit = false,
            AllowAutoCreateTopics = false,
        };
        string[] named = [.. topics];
        return Task.Run(() => Measure(config, named, cancellationToken), CancellationToken.None);
    }

    /// <summary>
    /// The partitions as a tab-separated table with a header line, and a line with the total lag; topic and owner names
    /// (a broker's and a client's text) made inert (control and bidirectional characters escaped).
    /// </summary>
    /// <returns>The table, each line ending with a line feed.</returns>
    public string ToTable()
    {
        var text = new StringBuilder();
        text.Append("TOPIC\tPARTITION\tCOMMITTED\tEND\tLAG\tOWNER\n");
        foreach (PartitionLag row in Partitions)
        {
            text.Append(Inert(row.Topic)).Append('\t').Append(row.Partition.ToString(CultureInfo.InvariantCulture)).Append('\t')
                .Append(row.Committed?.ToString(CultureInfo.InvariantCulture) ?? "-").Append('\t')
                .Append(row.End.ToString(CultureInfo.InvariantCulture)).Append('\t')
                .Append(row.Lag?.ToString(CultureInfo.InvariantCulture) ?? "-").Append('\t')
                .Append(Inert(row.Owner ?? "-")).Append('\n');
        }

        text.Append("total lag ").Append(TotalLag.ToString(CultureInfo.InvariantCulture))
            .Append(" over ").Append(Partitions.Count.ToString(CultureInfo.InvariantCulture)).Append(Partitions.Count == 1 ? " partition" : " partitions")
            .Append(Partitions.Any(r => r.Committed is null) ? " (partitions without a committed offset not counted)" : string.Empty).Append('\n');
        return text.ToString();
    }

    /// <summary>Each assigned partition's member, as "client.id host" (the first member named, should two claim one mid-rebalance).</summary>
    internal static Dictionary<TopicPartition, string> OwnersOf(IEnumerable<ConsumerGroupDescription> groups) =>
        groups.SelectMany(g => g.Members ?? [])
            .SelectMany(m => (m.Assignment?.TopicPartitions ?? []).Select(p => (p, Owner: (m.ClientId + " " + m.Host).Trim())))
            .GroupBy(x => x.p).ToDictionary(g => g.Key, g => g.First().Owner);

    private static string Inert(string text) => BoundedText.Cut(text, 300);

    private static ConsumerGroupLag Measure(ConsumerConfig config, string[] topics, CancellationToken cancellationToken)
    {
        using IConsumer<byte[], byte[]> consumer = new ConsumerBuilder<byte[], byte[]>(config).SetLogHandler((_, _) => { }).Build();
        using IAdminClient admin = new DependentAdminClientBuilder(consumer.Handle).Build();
        List<TopicPartition> partitions;
        if (topics.Length > 0)
        {
            Metadata metadata = admin.GetMetadata(RequestTimeout);
            partitions = topics.SelectMany(t => metadata.Topics.FirstOrDefault(m => m.Topic == t && !m.Error.IsError)?.Partitions.Select(p => new TopicPartition(t, p.PartitionId))
                ?? throw new KafkaException(new Error(ErrorCode.UnknownTopicOrPart, "the topic '" + Inert(t) + "' does not exist"))).ToList();
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
        Dictionary<TopicPartition, string> owners = Owners(admin, config.GroupId, cancellationToken, out string? ownersUnknown);
        List<PartitionLag> rows = partitions
            .OrderBy(p => p.Topic, StringComparer.Ordinal).ThenBy(p => p.Partition.Value)
            .Select(p => new PartitionLag(
                p.Topic,
                p.Partition.Value,
                committed.TryGetValue(p, out long offset) && offset >= 0 ? offset : null,
                consumer.QueryWatermarkOffsets(p, RequestTimeout).High.Value,
                owners.TryGetValue(p, out string? owner) ? owner : null))
            .ToList();
        return new ConsumerGroupLag(config.GroupId, rows.AsReadOnly(), ownersUnknown);
    }

    /// <summary>Who owns each partition now; none when the group has no members, or when the brokers do not say (<paramref name="ownersUnknown"/>: why).</summary>
    private static Dictionary<TopicPartition, string> Owners(IAdminClient admin, string group, CancellationToken cancellationToken, out string? ownersUnknown)
    {
        ownersUnknown = null;
        try
        {
            Task<DescribeConsumerGroupsResult> describing = admin.DescribeConsumerGroupsAsync([group], new DescribeConsumerGroupsOptions { RequestTimeout = RequestTimeout });
            if (!describing.Wait((int)RequestTimeout.TotalMilliseconds + 5_000, cancellationToken))
            {
                ownersUnknown = "the brokers did not describe the group within " + RequestTimeout.TotalSeconds.ToString(CultureInfo.InvariantCulture) + " s";
                return [];
            }

            return OwnersOf(describing.Result.ConsumerGroupDescriptions);
        }
        catch (AggregateException e) when (e.InnerException is KafkaException inner)
        {
            ownersUnknown = inner.Message;
            return [];
        }
        catch (KafkaException e)
        {
            ownersUnknown = e.Message;
            return [];
        }
    }
}
