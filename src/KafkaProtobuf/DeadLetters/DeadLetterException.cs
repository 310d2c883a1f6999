using System;
using Confluent.Kafka;

namespace KafkaProtobuf.DeadLetters;

/// <summary>
/// A dead letter was not written: the producer failed, or the broker did not acknowledge it in time. Nothing was
/// stored or committed for the record, and the consumer was moved back to it, so the next <c>Consume</c> delivers it
/// again: back off and carry on to retry (<see cref="IsRetriable"/>), or stop. The record is never skipped.
/// </summary>
/// <remarks>
/// After a timeout the dead letter may still be delivered later, so a retry can write a second one; dead letters are
/// at least once, and their <see cref="DeadLetterHeaderNames"/> source headers tell duplicates apart.
/// </remarks>
public sealed class DeadLetterException : KafkaException
{
    /// <summary>Creates the exception.</summary>
    /// <param name="error">Why the dead letter was not written: the delivery error, or <see cref="ErrorCode.Local_TimedOut"/>.</param>
    /// <param name="record">The record that was to be dead-lettered.</param>
    /// <param name="deadLetterTopic">The dead-letter topic.</param>
    /// <param name="innerException">The producer's exception, when it threw.</param>
    /// <exception cref="ArgumentNullException"><paramref name="error"/>, <paramref name="record"/> or <paramref name="deadLetterTopic"/> is <see langword="null"/>.</exception>
    public DeadLetterException(Error error, TopicPartitionOffset record, string deadLetterTopic, Exception? innerException)
        : base(
            Describe(
                error ?? throw new ArgumentNullException(nameof(error)),
                record ?? throw new ArgumentNullException(nameof(record)),
                deadLetterTopic ?? throw new ArgumentNullException(nameof(deadLetterTopic))),
            innerException!)
    {
        Record = record;
        DeadLetterTopic = deadLetterTopic;
        IsRetriable = !error.IsFatal && IsRetriableCode(error.Code);
    }

    /// <summary>The record that was to be dead-lettered; the consumer was moved back to it.</summary>
    public TopicPartitionOffset Record { get; }

    /// <summary>The dead-letter topic.</summary>
    public string DeadLetterTopic { get; }

    /// <summary>
    /// <see langword="true"/> when trying again may succeed: a timeout, a full queue, an unavailable leader or broker,
    /// too few replicas, a throttle. <see langword="false"/> for errors that repeat (authorization, a record too large
    /// for the topic, a fatal producer error): stop and fix the cause.
    /// </summary>
    public bool IsRetriable { get; }

    private static Error Describe(Error error, TopicPartitionOffset record, string deadLetterTopic) =>
        new(error.Code, "The dead letter for " + PositionText.Of(record) + " was not written to '" + deadLetterTopic + "': " + error.Reason
            + ". Nothing was stored or committed, and the consumer was moved back to the record.", error.IsFatal);

    private static bool IsRetriableCode(ErrorCode code) => code is
        ErrorCode.Local_TimedOut or ErrorCode.Local_MsgTimedOut or ErrorCode.Local_TimedOutQueue
        or ErrorCode.Local_QueueFull or ErrorCode.Local_Transport or ErrorCode.Local_AllBrokersDown
        or ErrorCode.Local_UnknownPartition or ErrorCode.Local_UnknownTopic or ErrorCode.Local_Retry
        or ErrorCode.UnknownTopicOrPart or ErrorCode.LeaderNotAvailable or ErrorCode.NotLeaderForPartition
        or ErrorCode.RequestTimedOut or ErrorCode.BrokerNotAvailable or ErrorCode.ReplicaNotAvailable
        or ErrorCode.NetworkException or ErrorCode.NotEnoughReplicas or ErrorCode.NotEnoughReplicasAfterAppend
        or ErrorCode.KafkaStorageError or ErrorCode.FencedLeaderEpoch or ErrorCode.UnknownLeaderEpoch
        or ErrorCode.NotController or ErrorCode.ThrottlingQuotaExceeded or ErrorCode.PreferredLeaderNotAvailable
        or ErrorCode.EligibleLeadersNotAvailable;
}
