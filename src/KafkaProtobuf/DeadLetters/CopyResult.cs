using Confluent.Kafka;

namespace KafkaProtobuf.DeadLetters;

/// <summary>
/// What writing a record's copy did (a dead letter, <see cref="DeadLetterExtensions.DeadLetter{TKey, TValue}(IConsumer{TKey, TValue}, ConsumeException, IProducer{byte[], byte[]}, string, System.TimeSpan)"/>,
/// or a retry topic's copy, <see cref="DeadLetterExtensions.Forward{TKey, TValue}"/>): where the copy went and what became of the offset.
/// </summary>
public sealed class CopyResult
{
    internal CopyResult(TopicPartitionOffset record, TopicPartitionOffset copy, OffsetOutcome offset, Error? offsetError)
    {
        Record = record;
        Copy = copy;
        Offset = offset;
        OffsetError = offsetError;
    }

    /// <summary>The record copied.</summary>
    public TopicPartitionOffset Record { get; }

    /// <summary>Where its copy was written, as the broker acknowledged it.</summary>
    public TopicPartitionOffset Copy { get; }

    /// <summary>What became of the offset past the record.</summary>
    public OffsetOutcome Offset { get; }

    /// <summary>Why the offset was not stored or not committed; <see langword="null"/> for <see cref="OffsetOutcome.Stored"/> and <see cref="OffsetOutcome.Committed"/>.</summary>
    public Error? OffsetError { get; }

    /// <summary>Describes the result, e.g. <c>orders [2] @41 copied to orders.dlq [0] @7; offset Stored</c>.</summary>
    /// <returns>The description.</returns>
    public override string ToString() =>
        Record + " copied to " + Copy + "; offset " + Offset + (OffsetError is null ? string.Empty : " (" + OffsetError.Code + ": " + OffsetError.Reason + ")");
}
