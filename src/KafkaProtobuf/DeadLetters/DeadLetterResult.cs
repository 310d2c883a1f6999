using Confluent.Kafka;

namespace KafkaProtobuf.DeadLetters;

/// <summary>What <see cref="DeadLetterExtensions.DeadLetter{TKey, TValue}(IConsumer{TKey, TValue}, ConsumeException, IProducer{byte[], byte[]}, string, System.TimeSpan)"/> did: where the dead letter went and what became of the offset.</summary>
public sealed class DeadLetterResult
{
    internal DeadLetterResult(TopicPartitionOffset record, TopicPartitionOffset deadLetter, DeadLetterOffsetOutcome offset, Error? offsetError)
    {
        Record = record;
        DeadLetter = deadLetter;
        Offset = offset;
        OffsetError = offsetError;
    }

    /// <summary>The record that failed to deserialize.</summary>
    public TopicPartitionOffset Record { get; }

    /// <summary>Where its dead letter was written, as the broker acknowledged it.</summary>
    public TopicPartitionOffset DeadLetter { get; }

    /// <summary>What became of the offset past the record.</summary>
    public DeadLetterOffsetOutcome Offset { get; }

    /// <summary>Why the offset was not stored or not committed; <see langword="null"/> for <see cref="DeadLetterOffsetOutcome.Stored"/> and <see cref="DeadLetterOffsetOutcome.Committed"/>.</summary>
    public Error? OffsetError { get; }

    /// <summary>Describes the result, e.g. <c>orders [2] @41 dead-lettered to orders.dlq [0] @7; offset Stored</c>.</summary>
    /// <returns>The description.</returns>
    public override string ToString() =>
        Record + " dead-lettered to " + DeadLetter + "; offset " + Offset + (OffsetError is null ? string.Empty : " (" + OffsetError.Code + ": " + OffsetError.Reason + ")");
}
