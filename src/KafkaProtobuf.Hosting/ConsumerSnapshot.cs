using System;
using System.Collections.Generic;

namespace KafkaProtobuf.Hosting;

/// <summary>
/// A hosted consumer as an operator sees it: read from the consumer's own state (its loop, its lag meter), never from
/// a telemetry topic. Text in it that came from outside (error messages) is made inert and cut.
/// </summary>
public sealed class ConsumerSnapshot
{
    internal ConsumerSnapshot(
        string name,
        string? groupId,
        IReadOnlyList<string> topics,
        string? deadLetterTopic,
        KafkaProtobufConsumerState state,
        string? failure,
        string? memberId,
        int recordsInHandlers,
        int failedAttempts,
        string? lastError,
        DateTimeOffset? lastErrorAt,
        IReadOnlyList<PartitionSnapshot> partitions)
    {
        Name = name;
        GroupId = groupId;
        Topics = topics;
        DeadLetterTopic = deadLetterTopic;
        State = state;
        Failure = failure;
        MemberId = memberId;
        RecordsInHandlers = recordsInHandlers;
        FailedAttempts = failedAttempts;
        LastError = lastError;
        LastErrorAt = lastErrorAt;
        Partitions = partitions;
    }

    /// <summary>The consumer's name.</summary>
    public string Name { get; }

    /// <summary>Its consumer group.</summary>
    public string? GroupId { get; }

    /// <summary>The topics it reads (retry topics included).</summary>
    public IReadOnlyList<string> Topics { get; }

    /// <summary>Where its poison records go, if anywhere.</summary>
    public string? DeadLetterTopic { get; }

    /// <summary>Where it is in its life.</summary>
    public KafkaProtobufConsumerState State { get; }

    /// <summary>Why it failed, when <see cref="State"/> is <see cref="KafkaProtobufConsumerState.Failed"/>.</summary>
    public string? Failure { get; }

    /// <summary>Its member id in the group, once it joined.</summary>
    public string? MemberId { get; }

    /// <summary>Records in its handlers now.</summary>
    public int RecordsInHandlers { get; }

    /// <summary>How many times the handler failed on the record in hand (0 when none is failing).</summary>
    public int FailedAttempts { get; }

    /// <summary>The latest error it met (a handler's failure, a Kafka error, a schema outage), if any.</summary>
    public string? LastError { get; }

    /// <summary>When <see cref="LastError"/> happened.</summary>
    public DateTimeOffset? LastErrorAt { get; }

    /// <summary>The partitions it holds, by topic then number.</summary>
    public IReadOnlyList<PartitionSnapshot> Partitions { get; }
}
