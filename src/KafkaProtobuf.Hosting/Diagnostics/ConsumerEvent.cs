using System.Collections.Generic;
using Confluent.Kafka;

namespace KafkaProtobuf.Hosting.Diagnostics;

/// <summary>
/// What one of <see cref="ConsumerDiagnostics"/>'s events carries: the consumer (its name and group) and, as the event
/// needs, a record's position, partitions, a commit's outcome, a client error or the read-ahead count. Subscribers read
/// its properties by name, as with any <see cref="System.Diagnostics.DiagnosticListener"/> payload.
/// </summary>
internal sealed class ConsumerEvent(
    string consumer,
    string? group,
    TopicPartitionOffset? position = null,
    IReadOnlyList<TopicPartition>? partitions = null,
    bool lost = false,
    bool schemaUnavailable = false,
    CommittedOffsets? committed = null,
    Error? error = null,
    long readAheadBytes = 0)
{
    /// <summary>The consumer's name (its registration's).</summary>
    public string Consumer { get; } = consumer;

    /// <summary>Its consumer group.</summary>
    public string? Group { get; } = group;

    /// <summary>The record the event is about.</summary>
    public TopicPartitionOffset? Position { get; } = position;

    /// <summary>Partitions assigned, revoked or lost.</summary>
    public IReadOnlyList<TopicPartition>? Partitions { get; } = partitions;

    /// <summary>Revoked: whether the partitions were lost (taken without a revocation).</summary>
    public bool Lost { get; } = lost;

    /// <summary>Moved back: the record's writer's schema was unavailable (otherwise its copy was not written).</summary>
    public bool SchemaUnavailable { get; } = schemaUnavailable;

    /// <summary>A commit's outcome.</summary>
    public CommittedOffsets? Committed { get; } = committed;

    /// <summary>An error the Kafka client reported.</summary>
    public Error? Error { get; } = error;

    /// <summary>What the records taken and not yet concluded count against the read-ahead budget, in bytes.</summary>
    public long ReadAheadBytes { get; } = readAheadBytes;
}
