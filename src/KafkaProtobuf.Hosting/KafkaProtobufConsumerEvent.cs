using System.Collections.Generic;
using Confluent.Kafka;

namespace KafkaProtobuf.Hosting;

/// <summary>
/// What each of the hosted consumer's diagnostic events carries (<see cref="KafkaProtobufConsumerDiagnostics"/>): the
/// consumer (its name and group) and, as the event needs, a record's position, partitions, a commit's outcome, a client
/// error or the read-ahead count. A property an event does not need is its default.
/// </summary>
public sealed class KafkaProtobufConsumerEvent
{
    internal KafkaProtobufConsumerEvent(
        string consumerName,
        string? groupId,
        TopicPartitionOffset? position = null,
        IReadOnlyList<TopicPartition>? partitions = null,
        bool lost = false,
        bool schemaUnavailable = false,
        CommittedOffsets? committed = null,
        Error? error = null,
        long readAheadBytes = 0)
    {
        ConsumerName = consumerName;
        GroupId = groupId;
        Position = position;
        Partitions = partitions;
        Lost = lost;
        SchemaUnavailable = schemaUnavailable;
        Committed = committed;
        Error = error;
        ReadAheadBytes = readAheadBytes;
    }

    /// <summary>The hosted consumer's name (its registration's, as <see cref="ConsumerSnapshot.Name"/>).</summary>
    public string ConsumerName { get; }

    /// <summary>Its consumer group (as <see cref="ConsumerSnapshot.GroupId"/>).</summary>
    public string? GroupId { get; }

    /// <summary>The record the event is about (delivered, moved back, dead-lettered, stored).</summary>
    public TopicPartitionOffset? Position { get; }

    /// <summary>Partitions assigned, revoked or lost.</summary>
    public IReadOnlyList<TopicPartition>? Partitions { get; }

    /// <summary>Revoked: whether the partitions were lost (taken without a revocation).</summary>
    public bool Lost { get; }

    /// <summary>Moved back: the record's writer's schema was unavailable (otherwise its copy was not written).</summary>
    public bool SchemaUnavailable { get; }

    /// <summary>A commit's outcome.</summary>
    public CommittedOffsets? Committed { get; }

    /// <summary>An error the Kafka client reported.</summary>
    public Error? Error { get; }

    /// <summary>What the records taken and not yet concluded count against the read-ahead budget, in bytes.</summary>
    public long ReadAheadBytes { get; }
}
