using System;
using System.Globalization;
using System.Threading.Tasks;
using Confluent.Kafka;

namespace KafkaProtobuf.DeadLetters;

/// <summary>
/// Dead-lettering for records a consumer cannot deserialize. Confluent.Kafka reports such a record as a
/// <see cref="ConsumeException"/> whose <see cref="ConsumeException.ConsumerRecord"/> holds the raw key, value and
/// headers; these helpers copy it, byte for byte, to a dead-letter topic with the failure described in headers, and
/// move the consumer past it the way the consumer manages offsets.
/// </summary>
/// <example>
/// The recommended loop (<c>EnableAutoOffsetStore = false</c>, auto-commit on):
/// <code>
/// try
/// {
///     var result = consumer.Consume(cancellationToken);
///     Handle(result.Message.Value);
///     consumer.StoreOffset(result);
/// }
/// catch (ConsumeException e) when (e.IsDeserializationFailure())
/// {
///     try { consumer.DeadLetter(e, deadLetterProducer, "orders.dlq", TimeSpan.FromSeconds(10)); }
///     catch (DeadLetterException d) when (d.IsRetriable) { Thread.Sleep(backoff); } // the record comes again
/// }
/// catch (ConsumeException e) when (e.IsSchemaUnavailable())
/// {
///     consumer.Seek(e.ConsumerRecord.TopicPartitionOffset); // not bad data: read it again after a pause
///     Thread.Sleep(backoff);
/// }
/// catch (ConsumeException e) when (e.IsRecoverableConsumerError())
/// {
///     log.LogWarning(e, "consume error"); // not a record: librdkafka retries the fetch itself
/// }
/// </code>
/// </example>
public static class DeadLetterExtensions
{
    /// <summary>
    /// Copies the failed record to <paramref name="deadLetterTopic"/>, waits until the broker has acknowledged it, then
    /// stores the offset past the record (<c>StoreOffset</c>) so that the consumer's own commits (auto-commit,
    /// <c>Commit()</c>, the commit on revoke and on <c>Close()</c>) carry it, exactly as they carry the offsets the loop
    /// stores for good records. Nothing is committed here, so no commit error can escape mid-loop.
    /// </summary>
    /// <typeparam name="TKey">The consumer's key type.</typeparam>
    /// <typeparam name="TValue">The consumer's value type.</typeparam>
    /// <param name="consumer">The consumer that threw, with <c>EnableAutoOffsetStore = false</c>.</param>
    /// <param name="exception">A deserialization failure (<see cref="ConsumeExceptionExtensions.IsDeserializationFailure"/>).</param>
    /// <param name="producer">A producer for raw bytes (acks=all recommended) with delivery reports on (the default).</param>
    /// <param name="deadLetterTopic">The dead-letter topic.</param>
    /// <param name="timeout">How long to wait for the broker's acknowledgement.</param>
    /// <returns>Where the dead letter went and what became of the offset.</returns>
    /// <exception cref="ArgumentException">The exception is not a deserialization failure, or the topic is empty.</exception>
    /// <exception cref="DeadLetterException">
    /// The dead letter was not acknowledged in time or the producer failed. Nothing was stored or committed, and the
    /// consumer was moved back to the record: the next <c>Consume</c> delivers it again.
    /// </exception>
    public static CopyResult DeadLetter<TKey, TValue>(
        this IConsumer<TKey, TValue> consumer,
        ConsumeException exception,
        IProducer<byte[], byte[]> producer,
        string deadLetterTopic,
        TimeSpan timeout) =>
        DeadLetter(consumer, exception, producer, deadLetterTopic, timeout, DeadLetterOffsetHandling.Store);

    /// <summary>
    /// Copies the failed record to <paramref name="deadLetterTopic"/>, waits until the broker has acknowledged it, then
    /// stores the offset past the record and, with <see cref="DeadLetterOffsetHandling.StoreAndCommit"/>, commits it.
    /// Nothing is stored or committed before the acknowledgement, and no store or commit error is thrown: the result
    /// reports it (<see cref="CopyResult.Offset"/>).
    /// </summary>
    /// <typeparam name="TKey">The consumer's key type.</typeparam>
    /// <typeparam name="TValue">The consumer's value type.</typeparam>
    /// <param name="consumer">The consumer that threw.</param>
    /// <param name="exception">A deserialization failure (<see cref="ConsumeExceptionExtensions.IsDeserializationFailure"/>).</param>
    /// <param name="producer">A producer for raw bytes (acks=all recommended) with delivery reports on (the default).</param>
    /// <param name="deadLetterTopic">The dead-letter topic.</param>
    /// <param name="timeout">How long to wait for the broker's acknowledgement.</param>
    /// <param name="offsetHandling">Store the offset past the record, or store and commit it.</param>
    /// <returns>Where the dead letter went and what became of the offset.</returns>
    /// <exception cref="ArgumentException">The exception is not a deserialization failure, or the topic is empty.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="offsetHandling"/> is not a defined value, or the timeout is negative.</exception>
    /// <exception cref="DeadLetterException">
    /// The dead letter was not acknowledged in time or the producer failed. Nothing was stored or committed, and the
    /// consumer was moved back to the record: the next <c>Consume</c> delivers it again.
    /// </exception>
    public static CopyResult DeadLetter<TKey, TValue>(
        this IConsumer<TKey, TValue> consumer,
        ConsumeException exception,
        IProducer<byte[], byte[]> producer,
        string deadLetterTopic,
        TimeSpan timeout,
        DeadLetterOffsetHandling offsetHandling)
    {
        CheckArguments(consumer, producer, deadLetterTopic, timeout, offsetHandling);
        return Send(consumer, exception.ToDeadLetterMessage(), exception.ConsumerRecord, producer, deadLetterTopic, timeout, offsetHandling);
    }

    /// <summary>
    /// Copies a record the application's handler failed on (it deserialized fine) to <paramref name="deadLetterTopic"/>,
    /// byte for byte with the failure in headers (<see cref="DeadLetterMessages.ToDeadLetterMessage(ConsumeResult{byte[], byte[]}, Exception)"/>),
    /// waits for the broker's acknowledgement, then stores (and, with <see cref="DeadLetterOffsetHandling.StoreAndCommit"/>,
    /// commits) the offset past it, as for a deserialization failure.
    /// </summary>
    /// <typeparam name="TKey">The consumer's key type.</typeparam>
    /// <typeparam name="TValue">The consumer's value type.</typeparam>
    /// <param name="consumer">The consumer the record came from.</param>
    /// <param name="record">The record as it was written: raw key, value and headers, topic, partition and offset.</param>
    /// <param name="failure">What the handler threw.</param>
    /// <param name="producer">A producer for raw bytes (acks=all recommended) with delivery reports on (the default).</param>
    /// <param name="deadLetterTopic">The dead-letter topic.</param>
    /// <param name="timeout">How long to wait for the broker's acknowledgement.</param>
    /// <param name="offsetHandling">Store the offset past the record, or store and commit it.</param>
    /// <returns>Where the dead letter went and what became of the offset.</returns>
    /// <exception cref="ArgumentException">The topic is empty.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="offsetHandling"/> is not a defined value, or the timeout is negative.</exception>
    /// <exception cref="DeadLetterException">
    /// The dead letter was not acknowledged in time or the producer failed. Nothing was stored or committed, and the
    /// consumer was moved back to the record: the next <c>Consume</c> delivers it again.
    /// </exception>
    public static CopyResult DeadLetter<TKey, TValue>(
        this IConsumer<TKey, TValue> consumer,
        ConsumeResult<byte[], byte[]> record,
        Exception failure,
        IProducer<byte[], byte[]> producer,
        string deadLetterTopic,
        TimeSpan timeout,
        DeadLetterOffsetHandling offsetHandling)
    {
        CheckArguments(consumer, producer, deadLetterTopic, timeout, offsetHandling);
        return Send(consumer, record.ToDeadLetterMessage(failure), record, producer, deadLetterTopic, timeout, offsetHandling);
    }

    /// <summary>
    /// Writes a message of the caller's making from a record (a copy for a retry topic, say) to <paramref name="topic"/>
    /// with the guarantees of a dead letter: it waits for the broker's acknowledgement, then stores (and, with
    /// <see cref="DeadLetterOffsetHandling.StoreAndCommit"/>, commits) the offset past the record; nothing is stored
    /// before the acknowledgement.
    /// </summary>
    /// <typeparam name="TKey">The consumer's key type.</typeparam>
    /// <typeparam name="TValue">The consumer's value type.</typeparam>
    /// <param name="consumer">The consumer the record came from.</param>
    /// <param name="record">The record, as it was written, whose offset is stored once the message is acknowledged.</param>
    /// <param name="message">What is written.</param>
    /// <param name="producer">A producer for raw bytes (acks=all recommended) with delivery reports on (the default).</param>
    /// <param name="topic">Where the message goes.</param>
    /// <param name="timeout">How long to wait for the broker's acknowledgement.</param>
    /// <param name="offsetHandling">Store the offset past the record, or store and commit it.</param>
    /// <returns>Where the message went and what became of the offset.</returns>
    /// <exception cref="ArgumentException">The topic is empty.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="offsetHandling"/> is not a defined value, or the timeout is negative.</exception>
    /// <exception cref="DeadLetterException">
    /// The message was not acknowledged in time or the producer failed. Nothing was stored or committed, and the
    /// consumer was moved back to the record: the next <c>Consume</c> delivers it again.
    /// </exception>
    public static CopyResult Forward<TKey, TValue>(
        this IConsumer<TKey, TValue> consumer,
        ConsumeResult<byte[], byte[]> record,
        Message<byte[], byte[]> message,
        IProducer<byte[], byte[]> producer,
        string topic,
        TimeSpan timeout,
        DeadLetterOffsetHandling offsetHandling)
    {
        CheckArguments(consumer, producer, topic, timeout, offsetHandling, nameof(topic));
        return Send(consumer, message ?? throw new ArgumentNullException(nameof(message)), record ?? throw new ArgumentNullException(nameof(record)), producer, topic, timeout, offsetHandling);
    }

    private static void CheckArguments<TKey, TValue>(
        IConsumer<TKey, TValue> consumer, IProducer<byte[], byte[]> producer, string deadLetterTopic, TimeSpan timeout, DeadLetterOffsetHandling offsetHandling, string topicParameter = "deadLetterTopic")
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
            throw new ArgumentException(topicParameter == "deadLetterTopic" ? "A dead-letter topic is required." : "A topic to write to is required.", topicParameter);
        }

        if (timeout < TimeSpan.Zero || timeout.TotalMilliseconds > int.MaxValue)
        {
            ThrowHelper.ThrowArgumentOutOfRange(nameof(timeout), "The timeout must be between 0 and int.MaxValue milliseconds.");
        }

        if (offsetHandling is not (DeadLetterOffsetHandling.Store or DeadLetterOffsetHandling.StoreAndCommit))
        {
            ThrowHelper.ThrowArgumentOutOfRange(nameof(offsetHandling), "Unknown offset handling.");
        }
    }

    /// <summary>Produces the dead letter, then stores (and commits) the offset past the record: one path for every kind of failure.</summary>
    private static CopyResult Send<TKey, TValue>(
        IConsumer<TKey, TValue> consumer,
        Message<byte[], byte[]> message,
        ConsumeResult<byte[], byte[]> record,
        IProducer<byte[], byte[]> producer,
        string deadLetterTopic,
        TimeSpan timeout,
        DeadLetterOffsetHandling offsetHandling)
    {
        TopicPartitionOffset written = Produce(consumer, producer, deadLetterTopic, message, record, timeout);

        // A partition revoked or lost meanwhile is its new owner's to read again. (librdkafka refuses to store for it,
        // but with EnableAutoOffsetStore = true it refuses every store, and a commit would still go through.)
        if (!consumer.Assignment.Contains(record.TopicPartition))
        {
            return new CopyResult(record.TopicPartitionOffset, written, OffsetOutcome.NotStored, new Error(ErrorCode.Local_State, "the partition is not assigned to this consumer"));
        }

        // Stored and committed through a ConsumeResult, so that the record's leader epoch goes with the offset (as
        // StoreOffset(result) does for good records) on every Confluent.Kafka version this package supports.
        var past = new ConsumeResult<TKey, TValue> { TopicPartitionOffset = record.TopicPartitionOffset, Message = new Message<TKey, TValue>() };
        try
        {
            consumer.StoreOffset(past);
        }
        catch (KafkaException e) when (e.Error.Code == ErrorCode.Local_InvalidArg)
        {
            // EnableAutoOffsetStore = true: librdkafka refuses explicit stores, and stored this offset itself when it
            // returned the record.
        }
        catch (KafkaException e)
        {
            return new CopyResult(record.TopicPartitionOffset, written, OffsetOutcome.NotStored, e.Error);
        }

        if (offsetHandling == DeadLetterOffsetHandling.Store)
        {
            return new CopyResult(record.TopicPartitionOffset, written, OffsetOutcome.Stored, null);
        }

        try
        {
            consumer.Commit(past);
            return new CopyResult(record.TopicPartitionOffset, written, OffsetOutcome.Committed, null);
        }
        catch (KafkaException e)
        {
            // RebalanceInProgress, IllegalGeneration, UnknownMemberId, a timeout: the stored offset goes with the next
            // commit, or the partition's next owner reads the record again.
            Error error = e is TopicPartitionOffsetException { Results.Count: > 0 } partial ? partial.Results[0].Error : e.Error;
            return new CopyResult(record.TopicPartitionOffset, written, OffsetOutcome.NotCommitted, error);
        }
    }

    /// <summary>Produces the dead letter and waits for its acknowledgement; on failure moves the consumer back to the record and throws.</summary>
    private static TopicPartitionOffset Produce<TKey, TValue>(
        IConsumer<TKey, TValue> consumer,
        IProducer<byte[], byte[]> producer,
        string deadLetterTopic,
        Message<byte[], byte[]> message,
        ConsumeResult<byte[], byte[]> record,
        TimeSpan timeout)
    {
        Error error;
        Exception? cause = null;
        try
        {
            // Wait for this record's delivery report only, not for everything else the producer may have queued.
            var delivered = new TaskCompletionSource<DeliveryReport<byte[], byte[]>>(TaskCreationOptions.RunContinuationsAsynchronously);
            producer.Produce(deadLetterTopic, message, report => delivered.TrySetResult(report));
            if (!delivered.Task.Wait(timeout))
            {
                error = new Error(ErrorCode.Local_TimedOut, "not acknowledged within " + timeout + " (it may still be delivered later)");
            }
            else if (delivered.Task.Result.Error is { IsError: true } deliveryError)
            {
                error = deliveryError;
            }
            else
            {
                return delivered.Task.Result.TopicPartitionOffset;
            }
        }
        catch (KafkaException e)
        {
            // ProduceException (a full queue, a record too large) or a fatal producer error.
            error = e.Error;
            cause = e;
        }

        if (error.Code == ErrorCode.MsgSizeTooLarge)
        {
            error = new Error(error.Code, error.Reason + " (" + SizeAdvice(message, record, deadLetterTopic) + ")", error.IsFatal);
        }

        // The consumer's position is already past the record: move it back, so that it is delivered again instead of
        // skipped when the loop carries on (and stored over by the next good record).
        try
        {
            consumer.Seek(record.TopicPartitionOffset);
        }
        catch (KafkaException)
        {
            // The partition is no longer assigned: its new owner starts from the committed offset, before the record.
        }

        throw new DeadLetterException(error, record.TopicPartitionOffset, deadLetterTopic, cause);
    }

    /// <summary>For a message refused for its size: both sizes, and the two settings that admit it.</summary>
    private static string SizeAdvice(Message<byte[], byte[]> message, ConsumeResult<byte[], byte[]> record, string topic)
    {
        long written = SizeOf(message);
        long read = SizeOf(record.Message);
        return "it is " + written.ToString("N0", CultureInfo.InvariantCulture) + " bytes: the record's key, value and headers "
            + read.ToString("N0", CultureInfo.InvariantCulture) + " and the headers added " + (written - read).ToString("N0", CultureInfo.InvariantCulture)
            + "; raise max.message.bytes of topic '" + topic + "' and message.max.bytes of the producer above that";
    }

    /// <summary>Key, value and headers, names and values, as a broker's size limit counts them (less its few bytes of framing).</summary>
    private static long SizeOf(Message<byte[], byte[]> message)
    {
        long size = (message.Key?.LongLength ?? 0) + (message.Value?.LongLength ?? 0);
        foreach (IHeader header in message.Headers ?? [])
        {
            size += System.Text.Encoding.UTF8.GetByteCount(header.Key) + (header.GetValueBytes()?.LongLength ?? 0);
        }

        return size;
    }
}
