using System;
using System.Diagnostics;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Hosting.Batching;
using KafkaProtobuf.Hosting.Consuming;
using KafkaProtobuf.Hosting.Diagnostics;
using KafkaProtobuf.Hosting.Handling;
using KafkaProtobuf.Hosting.Scheduling;

namespace KafkaProtobuf.Hosting.Service;

/// <summary>
/// What follows a record's handler, in both loops, on the loop thread and in each partition's order: the offset is
/// stored (auto-commit sends it), the record is dead-lettered byte for byte, or the consumer stops. A dead letter the
/// broker did not take moves the consumer back to the record, to be read again after <see cref="KafkaProtobufConsumerOptions.ReadAgainDelay"/>.
/// </summary>
internal sealed partial class KafkaProtobufConsumerService<TKey, TValue>
{
    /// <summary>Concludes a record its handler is done with.</summary>
    /// <param name="record">The record.</param>
    /// <param name="result">What the handler made of it.</param>
    /// <param name="activity">Its span, if traced.</param>
    /// <param name="ownBytes">Its key and value bytes, when it has its own copy; null when the capture still holds them (the record just consumed).</param>
    private AfterConclusion Conclude(ConsumeResult<TKey, TValue> record, HandlerResult result, Activity? activity, (byte[]? Key, byte[]? Value)? ownBytes)
    {
        switch (result.Outcome)
        {
            case HandlerOutcome.Handled:
                _step!.StoreOffset(record);
                _status.RecordDone(record.Topic, record.Partition);
                return AfterConclusion.Continue;
            case HandlerOutcome.DeadLetter when _options.DeadLetterTopic is not null || (_retries is not null && result.AttemptsRanOut):
                (byte[]? key, byte[]? value) = ownBytes ?? (_step!.Keys.ToArray(), _step!.Values.ToArray());
                ConsumeResult<byte[], byte[]> written = Raw(record, key, value);
                Exception failure = result.Failure!;
                AfterConclusion after = result.AttemptsRanOut && _retries?.NextTopic(written, out int tier) is { } retryTopic
                    ? SendToRetryTopic(written, retryTopic, tier, failure, activity)
                    : DeadLetter(written, () => _step!.DeadLetter(written, failure, _deadLetters!, _options.DeadLetterTopic!, _options.DeadLetterTimeout), handlerFailure: true, failure, activity);
                if (after == AfterConclusion.ReadAgain)
                {
                    // Not written: read again, the record is written again with what its handler made of it, not handled again.
                    _unwritten.Keep(record.TopicPartitionOffset, result);
                }

                return after;
            case HandlerOutcome.DeadLetter or HandlerOutcome.Stop:
                Exception e = result.Failure!;
                Fail(
                    "the handler failed on " + PositionText.Of(record.Topic, record.Partition, record.Offset)
                        + (result.Outcome == HandlerOutcome.DeadLetter ? " and there is no dead-letter topic" : " and the policy is to stop")
                        + " (" + BoundedText.Describe(e) + ")",
                    e);
                return AfterConclusion.Stop;
            default:
                return AfterConclusion.Stop; // cancelled at shutdown: not committed, read again
        }
    }

    /// <summary>
    /// Concludes a batch its handler is done with: handled, every partition's offset is stored past its last record;
    /// failed, record by record in order (each stored, dead-lettered, or stopping the consumer), stopping where a dead
    /// letter could not be written (<see cref="RecordBatch{TKey, TValue}.ReadAgainAt"/>). Its copied bytes go back to the pool.
    /// </summary>
    private AfterConclusion ConcludeBatch(RecordBatch<TKey, TValue> batch, Activity? activity)
    {
        try
        {
            switch (batch.Result.Outcome)
            {
                case HandlerOutcome.Handled:
                    foreach (ConsumeResult<TKey, TValue> last in batch.LastOfEachPartition())
                    {
                        _step!.StoreOffset(last);
                        _status.RecordDone(last.Topic, last.Partition);
                    }

                    return AfterConclusion.Continue;
                case HandlerOutcome.Cancelled:
                    return AfterConclusion.Stop; // shutting down: nothing of it is stored; read again
                case HandlerOutcome.Stop when batch.RecordResults is null:
                    Exception e = batch.Result.Failure!;
                    Fail("the batch handler failed on " + batch.Describe() + " and the policy is to stop (" + BoundedText.Describe(e) + ")", e);
                    return AfterConclusion.Stop;
            }

            for (int i = 0; i < batch.Count; i++)
            {
                HandlerResult result = batch.ResultOf(i);

                // Own bytes only for a dead letter: no other outcome reads them (and copying every record's would cost an array each).
                AfterConclusion after = Conclude(batch[i], result, activity, result.Outcome == HandlerOutcome.DeadLetter ? batch.BytesOf(i) : null);
                if (after != AfterConclusion.Continue)
                {
                    batch.ReadAgainAt(i);
                    return after;
                }
            }

            return AfterConclusion.Continue;
        }
        finally
        {
            batch.Release();
        }
    }

    /// <summary>Dead-letters a poison record in a span of its own (it had none: no handler ran).</summary>
    private AfterConclusion DeadLetterPoison(ConsumeException poison)
    {
        using Activity? activity = _tracing.StartPoison(poison);
        return DeadLetter(poison.ConsumerRecord, () => _step!.DeadLetter(poison, _deadLetters!, _options.DeadLetterTopic!, _options.DeadLetterTimeout), handlerFailure: false, poison.InnerException ?? poison, activity);
    }

    /// <summary>Writes a dead letter (see <see cref="Forward"/>); without a dead-letter topic the consumer stops.</summary>
    private AfterConclusion DeadLetter(ConsumeResult<byte[], byte[]> record, Func<DeadLetterResult> send, bool handlerFailure, Exception failure, Activity? activity)
    {
        if (_options.DeadLetterTopic is not { } topic)
        {
            string what = handlerFailure ? " was not handled after its last retry topic" : " cannot be deserialized";
            Fail(PositionText.Of(record.TopicPartitionOffset) + what + " and there is no dead-letter topic (" + BoundedText.Describe(failure) + ")", failure);
            return AfterConclusion.Stop;
        }

        string reason = handlerFailure ? "handler" : "deserialization";
        return Forward(record, send, topic, activity, () =>
        {
            ConsumerTracing.DeadLettered(activity, topic, reason);
            _probe?.DeadLettered(Name, record.TopicPartitionOffset);
            ConsumerMetrics.DeadLetter(_tag, handlerFailure);
            ConsumerLog.DeadLettered(_logger, Name, PositionText.Of(record.TopicPartitionOffset), topic, reason, BoundedText.Describe(failure));
        });
    }

    /// <summary>Copies a record whose handler failed for good to its next retry topic, due after that tier's delay (see <see cref="Forward"/>).</summary>
    private AfterConclusion SendToRetryTopic(ConsumeResult<byte[], byte[]> record, string topic, int tier, Exception failure, Activity? activity)
    {
        Message<byte[], byte[]> copy = _retries!.Copy(record, failure, tier, out DateTimeOffset due);
        return Forward(record, () => _step!.Forward(record, copy, _deadLetters!, topic, _options.DeadLetterTimeout), topic, activity, () =>
        {
            ConsumerTracing.SentToRetryTopic(activity, topic, tier);
            ConsumerMetrics.SentToRetryTopic(_tag, tier);
            ConsumerLog.SentToRetryTopic(_logger, Name, PositionText.Of(record.TopicPartitionOffset), topic, due, BoundedText.Describe(failure));
        });
    }

    /// <summary>
    /// Writes a record elsewhere (a dead letter, a retry topic's copy) and stores its offset once the broker has it. A
    /// retriable failure: the consumer was moved back to the record, which is read again after a delay; any other stops.
    /// </summary>
    private AfterConclusion Forward(ConsumeResult<byte[], byte[]> record, Func<DeadLetterResult> send, string topic, Activity? activity, Action written)
    {
        string where = PositionText.Of(record.TopicPartitionOffset);
        try
        {
            send();
            written();
            _status.RecordDone(record.Topic, record.Partition);
            return AfterConclusion.Continue;
        }
        catch (DeadLetterException d) when (d.IsRetriable)
        {
            // Forward moved the consumer back to the record: after the delay, Consume delivers it again.
            string why = d.Error.Code + (_step!.IsMissing(topic, d.Error.Code) ? ": the topic '" + topic + "' does not exist; create it (or let the broker create topics)" : string.Empty);
            ConsumerLog.DeadLetterRetrying(_logger, Name, where, topic, why, _options.ReadAgainDelay);
            ConsumerTracing.DeadLetterFailed(activity, d);
            _status.Waits(record.TopicPartition, "write to '" + topic + "'", why);
            _probe?.MovedBack(Name, record.TopicPartitionOffset, schemaUnavailable: false);
            return AfterConclusion.ReadAgain;
        }
        catch (DeadLetterException d)
        {
            Fail(
                where + " cannot be written to '" + topic + "' (" + d.Error.Code + ": " + BoundedText.Cut(d.Error.Reason)
                    + "; not retriable): nothing was stored past the record, which is read again when the consumer restarts",
                d);
            return AfterConclusion.Stop;
        }
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
