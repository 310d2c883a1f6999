using System;
using System.Globalization;
using System.Text;
using System.Threading.Tasks;
using Confluent.Kafka;

namespace KafkaProtobuf;

/// <summary>
/// Dead-lettering for records a consumer cannot deserialize. Confluent.Kafka reports such a record as a
/// <see cref="ConsumeException"/> whose <see cref="ConsumeException.ConsumerRecord"/> holds the raw key, value and
/// headers; these helpers copy it, byte for byte, to a dead-letter topic with the failure described in headers, and
/// move the consumer past it.
/// </summary>
/// <example>
/// <code>
/// try { var result = consumer.Consume(cancellationToken); /* handle */ consumer.Commit(result); }
/// catch (ConsumeException e) when (e.IsDeserializationFailure())
/// {
///     consumer.DeadLetter(e, deadLetterProducer, "orders.dlq", TimeSpan.FromSeconds(10));
/// }
/// </code>
/// </example>
public static class DeadLetterExtensions
{
    /// <summary>
    /// Whether the exception is a key or value deserialization failure, the kind that carries the raw record and that
    /// consuming again would only repeat.
    /// </summary>
    /// <param name="exception">The consume exception.</param>
    /// <returns><see langword="true"/> for <see cref="ErrorCode.Local_KeyDeserialization"/> and <see cref="ErrorCode.Local_ValueDeserialization"/>.</returns>
    public static bool IsDeserializationFailure(this ConsumeException exception)
    {
        if (exception is null)
        {
            throw new ArgumentNullException(nameof(exception));
        }

        return exception.Error.Code is ErrorCode.Local_KeyDeserialization or ErrorCode.Local_ValueDeserialization
            && exception.ConsumerRecord is not null;
    }

    /// <summary>
    /// The dead-letter message for a record that failed to deserialize: its original key, value and headers, unchanged,
    /// followed by the <see cref="DeadLetterHeaderNames"/> headers.
    /// </summary>
    /// <param name="exception">A deserialization failure (<see cref="IsDeserializationFailure"/>).</param>
    /// <returns>The message to produce to the dead-letter topic.</returns>
    /// <exception cref="ArgumentException">The exception is not a deserialization failure.</exception>
    public static Message<byte[], byte[]> ToDeadLetterMessage(this ConsumeException exception)
    {
        if (exception is null)
        {
            throw new ArgumentNullException(nameof(exception));
        }

        if (!exception.IsDeserializationFailure())
        {
            throw new ArgumentException("Only key and value deserialization failures carry the raw record.", nameof(exception));
        }

        ConsumeResult<byte[], byte[]> record = exception.ConsumerRecord;
        var headers = new Headers();
        if (record.Message.Headers is { } original)
        {
            foreach (IHeader header in original)
            {
                headers.Add(header.Key, header.GetValueBytes());
            }
        }

        Exception? cause = exception.InnerException;
        var frameError = cause as InvalidFrameException;
        Add(headers, DeadLetterHeaderNames.ErrorCode, frameError?.ErrorCode.ToString() ?? cause?.GetType().Name ?? exception.Error.Code.ToString());
        Add(headers, DeadLetterHeaderNames.ErrorMessage, cause?.Message ?? exception.Message);
        Add(headers, DeadLetterHeaderNames.Component, exception.Error.Code == ErrorCode.Local_KeyDeserialization ? "key" : "value");
        if (frameError is not null)
        {
            Add(headers, DeadLetterHeaderNames.ErrorOffset, frameError.Offset.ToString(CultureInfo.InvariantCulture));
        }

        Add(headers, DeadLetterHeaderNames.SourceTopic, record.Topic);
        Add(headers, DeadLetterHeaderNames.SourcePartition, record.Partition.Value.ToString(CultureInfo.InvariantCulture));
        Add(headers, DeadLetterHeaderNames.SourceOffset, record.Offset.Value.ToString(CultureInfo.InvariantCulture));

        return new Message<byte[], byte[]>
        {
            Key = record.Message.Key,
            Value = record.Message.Value,
            Headers = headers,
            Timestamp = record.Message.Timestamp,
        };
    }

    /// <summary>
    /// Copies the failed record to <paramref name="deadLetterTopic"/>, waits until the broker has acknowledged it, then
    /// commits the consumer's offset past the record, so neither a restart nor a rebalance delivers it again. The
    /// dead-letter write comes first: if it fails, nothing is committed and the exception says why.
    /// </summary>
    /// <typeparam name="TKey">The consumer's key type.</typeparam>
    /// <typeparam name="TValue">The consumer's value type.</typeparam>
    /// <param name="consumer">The consumer that threw.</param>
    /// <param name="exception">A deserialization failure (<see cref="IsDeserializationFailure"/>).</param>
    /// <param name="producer">A producer for raw bytes (acks=all recommended).</param>
    /// <param name="deadLetterTopic">The dead-letter topic.</param>
    /// <param name="timeout">How long to wait for the broker's acknowledgement.</param>
    /// <returns>Where the dead letter was written.</returns>
    /// <exception cref="ArgumentException">The exception is not a deserialization failure.</exception>
    /// <exception cref="KafkaException">The dead letter was not acknowledged in time, or the commit failed.</exception>
    public static TopicPartitionOffset DeadLetter<TKey, TValue>(
        this IConsumer<TKey, TValue> consumer,
        ConsumeException exception,
        IProducer<byte[], byte[]> producer,
        string deadLetterTopic,
        TimeSpan timeout)
    {
        if (consumer is null)
        {
            throw new ArgumentNullException(nameof(consumer));
        }

        if (producer is null)
        {
            throw new ArgumentNullException(nameof(producer));
        }

        if (string.IsNullOrEmpty(deadLetterTopic))
        {
            throw new ArgumentException("A dead-letter topic is required.", nameof(deadLetterTopic));
        }

        Message<byte[], byte[]> message = exception.ToDeadLetterMessage();

        // Wait for this record's delivery report only, not for everything else the producer may have queued.
        var delivered = new TaskCompletionSource<DeliveryReport<byte[], byte[]>>(TaskCreationOptions.RunContinuationsAsynchronously);
        producer.Produce(deadLetterTopic, message, report => delivered.TrySetResult(report));
        if (!delivered.Task.Wait(timeout))
        {
            throw new KafkaException(new Error(ErrorCode.Local_TimedOut, $"The dead letter for {exception.ConsumerRecord.TopicPartitionOffset} was not acknowledged within {timeout}."));
        }

        DeliveryReport<byte[], byte[]> result = delivered.Task.Result;
        if (result.Error.IsError)
        {
            throw new KafkaException(result.Error);
        }

        ConsumeResult<byte[], byte[]> record = exception.ConsumerRecord;
        consumer.Commit([new TopicPartitionOffset(record.TopicPartition, record.Offset + 1)]);
        return result.TopicPartitionOffset;
    }

    private static void Add(Headers headers, string name, string value) => headers.Add(name, Encoding.UTF8.GetBytes(value));
}
