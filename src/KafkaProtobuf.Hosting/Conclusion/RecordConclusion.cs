using System;
using System.Diagnostics;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Hosting.Batching;
using KafkaProtobuf.Hosting.Consuming;
using KafkaProtobuf.Hosting.Diagnostics;
using KafkaProtobuf.Hosting.Handling;
using KafkaProtobuf.Hosting.Health;
using KafkaProtobuf.Hosting.Retrying;
using KafkaProtobuf.Hosting.Scheduling;

namespace KafkaProtobuf.Hosting.Conclusion;

/// <summary>
/// What follows a record's handler (or a batch's), in every mode, on the loop thread and in each partition's order: the
/// offset is stored (auto-commit sends it), the record is written elsewhere byte for byte (its next retry topic, or the
/// dead-letter topic) and the offset past it stored, or the consumer stops (the answer carries why). A write the broker
/// did not take moves the consumer back to the record, to be read again after the read-again delay; what its handler
/// made of it is kept (<see cref="UnwrittenFailures"/>), so the write is retried, never the handler. Events go to
/// <see cref="ConclusionEvents"/>.
/// </summary>
/// <typeparam name="TKey">The key type.</typeparam>
/// <typeparam name="TValue">The value type.</typeparam>
internal sealed class RecordConclusion<TKey, TValue>
{
    private readonly ConsumerClient<TKey, TValue> _client;
    private readonly IProducer<byte[], byte[]>? _writer; // dead letters and retry topics' copies
    private readonly string? _deadLetterTopic;
    private readonly TimeSpan _writeTimeout;
    private readonly RetryTiers? _retries;
    private readonly ProvenanceCodec _codec;
    private readonly ConsumerStatus _status;
    private readonly ConclusionEvents _events;
    private readonly ConsumerTracing _tracing;
    private readonly CopyWriter<TKey, TValue> _copies;

    /// <param name="client">The Kafka client: stores, and writes through the consumer.</param>
    /// <param name="writer">The producer of dead letters and retry copies; null with neither.</param>
    /// <param name="deadLetterTopic">The dead-letter topic, if any: without one, a record that fails for good stops the consumer.</param>
    /// <param name="writeTimeout">How long a write may take to be acknowledged.</param>
    /// <param name="topicCheckTimeout">How long a write that failed waits for the brokers to say whether its topic exists.</param>
    /// <param name="readAgainDelay">How long before a record whose write failed is read again (for the log).</param>
    /// <param name="retries">The retry topics, if any.</param>
    /// <param name="codec">How dead letters and retry copies are written (signed with the consumer's keys, if any).</param>
    /// <param name="status">The consumer's health.</param>
    /// <param name="events">Where what happened is reported.</param>
    /// <param name="tracing">Spans, for a poison record's.</param>
    public RecordConclusion(
        ConsumerClient<TKey, TValue> client,
        IProducer<byte[], byte[]>? writer,
        string? deadLetterTopic,
        TimeSpan writeTimeout,
        TimeSpan topicCheckTimeout,
        TimeSpan readAgainDelay,
        RetryTiers? retries,
        ProvenanceCodec codec,
        ConsumerStatus status,
        ConclusionEvents events,
        ConsumerTracing tracing)
    {
        _client = client;
        _writer = writer;
        _deadLetterTopic = deadLetterTopic;
        _writeTimeout = writeTimeout;
        _retries = retries;
        _codec = codec;
        _status = status;
        _events = events;
        _tracing = tracing;
        _copies = new CopyWriter<TKey, TValue>(client, topicCheckTimeout, readAgainDelay, status, events);
    }

    /// <summary>Records read again to write what their handler made of them, not to be handled again.</summary>
    public UnwrittenFailures Unwritten { get; } = new();

    /// <summary>Concludes a record its handler is done with.</summary>
    /// <param name="record">The record.</param>
    /// <param name="result">What the handler made of it.</param>
    /// <param name="activity">Its span, if traced.</param>
    /// <param name="ownBytes">Its key and value bytes, when it has its own copy; null when the client's captures
    /// still hold them (the record just consumed).</param>
    public AfterConclusion Conclude(
        ConsumeResult<TKey, TValue> record, HandlerResult result, Activity? activity, (byte[]? Key, byte[]? Value)? ownBytes)
    {
        switch (result.Outcome)
        {
            case HandlerOutcome.Handled:
                _client.StoreOffset(record);
                _status.RecordDone(record.Topic, record.Partition);
                return AfterConclusion.Continue;
            case HandlerOutcome.DeadLetter when _deadLetterTopic is not null || (_retries is not null && result.AttemptsRanOut):
                return WriteElsewhere(record, result, activity, ownBytes);
            case HandlerOutcome.DeadLetter or HandlerOutcome.Stop:
                Exception e = result.Failure!;
                string where = PositionText.Of(record.Topic, record.Partition, record.Offset);
                string because = result.Outcome == HandlerOutcome.DeadLetter ? "there is no dead-letter topic" : "the policy is to stop";
                return AfterConclusion.Fail("the handler failed on " + where + " and " + because + " (" + BoundedText.Describe(e) + ")", e);
            default:
                return AfterConclusion.ShutDown; // cancelled at shutdown: not committed, read again
        }
    }

    /// <summary>
    /// Writes a record whose handler failed for good to its next retry topic or the dead-letter topic. A method of its
    /// own: the write's closure captures locals, and inside the record conclusion's switch the compiler allocated it on
    /// entry, for every record handled too (40 bytes a record).
    /// </summary>
    private AfterConclusion WriteElsewhere(
        ConsumeResult<TKey, TValue> record, HandlerResult result, Activity? activity, (byte[]? Key, byte[]? Value)? ownBytes)
    {
        (byte[]? key, byte[]? value) = ownBytes ?? (_client.KeyCapture.ToArray(), _client.ValueCapture.ToArray());
        ConsumeResult<byte[], byte[]> written = Raw(record, key, value);
        Exception failure = result.Failure!;
        RetryTier? readFrom = _retries?.TierOf(record.Topic);
        AfterConclusion after = result.AttemptsRanOut && _retries?.NextTier(written, readFrom) is { } next
            ? SendToRetryTopic(written, next, failure, activity)
            : DeadLetter(
                written,
                () => _client.Forward(
                    written, _codec.ToDeadLetterMessage(written, failure, readFrom), _writer!, _deadLetterTopic!, _writeTimeout),
                handlerFailure: true,
                failure,
                activity);
        if (after.IsReadAgain)
        {
            // Not written: read again, the record is written again with what its handler made of it, not handled again.
            Unwritten.Remember(record.TopicPartitionOffset, result);
        }

        return after;
    }

    /// <summary>
    /// Concludes a batch its handler is done with: handled, every partition's offset is stored past its last record;
    /// failed, record by record in order (each stored, written elsewhere, or stopping the consumer), stopping where a
    /// write failed (<see cref="RecordBatch{TKey, TValue}.ReadAgainAt"/>). Its copied bytes go back to the pool.
    /// </summary>
    public AfterConclusion Conclude(RecordBatch<TKey, TValue> batch, Activity? activity)
    {
        try
        {
            switch (batch.Result.Outcome)
            {
                case HandlerOutcome.Handled:
                    foreach (ConsumeResult<TKey, TValue> last in batch.LastOfEachPartition())
                    {
                        _client.StoreOffset(last);
                        _status.RecordDone(last.Topic, last.Partition);
                    }

                    return AfterConclusion.Continue;
                case HandlerOutcome.Cancelled:
                    return AfterConclusion.ShutDown; // shutting down: nothing of it is stored; read again
                case HandlerOutcome.Stop when batch.RecordResults is null:
                    Exception e = batch.Result.Failure!;
                    return AfterConclusion.Fail(
                        "the batch handler failed on " + batch.Describe() + " and the policy is to stop (" + BoundedText.Describe(e) + ")",
                        e);
            }

            for (int i = 0; i < batch.Count; i++)
            {
                HandlerResult result = batch.ResultOf(i);

                // Own bytes only for a dead letter: no other outcome reads them (and copying every record's would cost an array each).
                AfterConclusion after = Conclude(
                    batch[i], result, activity, result.Outcome == HandlerOutcome.DeadLetter ? batch.BytesOf(i) : null);
                if (!after.IsContinue)
                {
                    batch.ReadAgainAt(i);
                    return after;
                }
            }

            return AfterConclusion.Continue;
        }
        finally
        {
            batch.ReleaseBytes();
        }
    }

    /// <summary>Dead-letters a poison record in a span of its own (it had none: no handler ran).</summary>
    public AfterConclusion DeadLetterPoison(ConsumeException poison)
    {
        using Activity? activity = _tracing.StartPoison(poison);
        ConsumeResult<byte[], byte[]> record = poison.ConsumerRecord;
        return DeadLetter(
            record,
            () => _client.Forward(
                record, _codec.ToDeadLetterMessage(poison, _retries?.TierOf(record.Topic)), _writer!, _deadLetterTopic!, _writeTimeout),
            handlerFailure: false,
            poison.InnerException ?? poison,
            activity);
    }

    /// <summary>
    /// Writes a dead letter (see <see cref="CopyWriter{TKey, TValue}.Write"/>); without a dead-letter topic the consumer stops.
    /// </summary>
    private AfterConclusion DeadLetter(
        ConsumeResult<byte[], byte[]> record, Func<CopyResult> send, bool handlerFailure, Exception failure, Activity? activity)
    {
        if (_deadLetterTopic is not { } topic)
        {
            string what = handlerFailure ? " was not handled after its last retry topic" : " cannot be deserialized";
            return AfterConclusion.Fail(
                PositionText.Of(record.TopicPartitionOffset)
                    + what + " and there is no dead-letter topic (" + BoundedText.Describe(failure) + ")",
                failure);
        }

        return _copies.Write(
            record,
            send,
            topic,
            activity,
            written => _events.DeadLettered(activity, record.TopicPartitionOffset, topic, handlerFailure, failure, written));
    }

    /// <summary>
    /// Copies a record whose handler failed for good to its next retry topic, due after that tier's delay (see
    /// <see cref="CopyWriter{TKey, TValue}.Write"/>).
    /// </summary>
    private AfterConclusion SendToRetryTopic(
        ConsumeResult<byte[], byte[]> record, RetryTier to, Exception failure, Activity? activity)
    {
        Message<byte[], byte[]> copy = _retries!.Copy(record, failure, to, out DateTimeOffset due);
        return _copies.Write(record, () => _client.Forward(record, copy, _writer!, to.Name, _writeTimeout), to.Name, activity, written =>
            _events.SentToRetryTopic(activity, record.TopicPartitionOffset, to.Name, to.Tier, due, failure, written));
    }

    /// <summary>A record as it was written, for its dead letter: its key and value bytes, headers and position.</summary>
    private static ConsumeResult<byte[], byte[]> Raw(ConsumeResult<TKey, TValue> record, byte[]? key, byte[]? value) => new()
    {
        TopicPartitionOffset = record.TopicPartitionOffset,
        Message = new Message<byte[], byte[]>
        {
            Key = key!,
            Value = value!,
            Headers = record.Message.Headers,
            Timestamp = record.Message.Timestamp,
        },
    };
}
