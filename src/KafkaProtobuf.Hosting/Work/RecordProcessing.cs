using System;
using System.Diagnostics;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Conclusion;
using KafkaProtobuf.Hosting.Consuming;
using KafkaProtobuf.Hosting.Diagnostics;
using KafkaProtobuf.Hosting.Handling;
using KafkaProtobuf.Hosting.Scheduling;

namespace KafkaProtobuf.Hosting.Work;

/// <summary>
/// What the scheduler does with a record of partition-parallel mode: run its handler (on a worker, or the loop), then,
/// in its partition's order, conclude it. In partition order, a record's key and value are read from its bytes when a
/// handler takes it, not when it is consumed: a record read ahead holds its bytes once (they are also what its dead
/// letter is written from). A record that cannot be read then is concluded in its turn as it would have been at
/// consume: dead-lettered, or read again later. In key order it is read at consume: records of other keys after one
/// whose writer's schema is unavailable could otherwise be handled before it is found, and handled again when the
/// partition goes back to it.
/// </summary>
internal sealed class RecordProcessing<TKey, TValue>
{
    private readonly ConsumerClient<TKey, TValue> _client;
    private readonly RecordConclusion<TKey, TValue> _conclusion;
    private readonly HandlerRunner<ConsumeResult<TKey, TValue>> _handler;
    private readonly ConsumerTracing _tracing;
    private readonly bool _readsAtHandOver;

    /// <param name="client">The consumer's client: its captures hold the record just consumed; it sorts what cannot be read.</param>
    /// <param name="conclusion">Concludes a record its handler is done with.</param>
    /// <param name="handler">The record handler, with its retries.</param>
    /// <param name="tracing">Spans.</param>
    /// <param name="perKey">Per-key order: records are read at consume.</param>
    public RecordProcessing(
        ConsumerClient<TKey, TValue> client,
        RecordConclusion<TKey, TValue> conclusion,
        HandlerRunner<ConsumeResult<TKey, TValue>> handler,
        ConsumerTracing tracing,
        bool perKey)
    {
        _client = client;
        _conclusion = conclusion;
        _handler = handler;
        _tracing = tracing;
        _readsAtHandOver = !perKey;
        client.KeyCapture.ReadsLater = client.ValueCapture.ReadsLater = _readsAtHandOver;
    }

    /// <summary>A worker (or the loop) runs the handler, with the record's span current for the handler only.</summary>
    public ValueTask<HandlerResult> HandleAsync(RecordWork<TKey, TValue> work)
    {
        if (_readsAtHandOver && !TryRead(work))
        {
            // Not the handler's failure: it is concluded in its turn (see Conclude), holding what comes after it in its
            // sequence until then.
            return new ValueTask<HandlerResult>(new HandlerResult(HandlerOutcome.DeadLetter, work.Unread));
        }

        Activity? activity = work.Activity = _tracing.Start(work.Record!);
        try
        {
            return _handler.RunAsync(work.HandlerView!, activity); // an awaiting handler carries the span on in its context
        }
        finally
        {
            Spans.Leave(activity);
        }
    }

    /// <summary>Concludes a record its handler is done with (loop thread, in its partition's order).</summary>
    public AfterConclusion Conclude(RecordWork<TKey, TValue> work)
    {
        if (work.Unread is { } unread)
        {
            // Sorted as at consume (one consumed as poison sorts as poison again).
            return _client.SortUnread(unread) switch
            {
                Consumed.Poison => _conclusion.DeadLetterPoison(unread),
                // the scheduler drops what was read after it and reads it again after a delay
                Consumed.SchemaUnavailable => AfterConclusion.ReadAgain,
                _ => AfterConclusion.Fail(_client.Failure!), // the schema source refused the credentials
            };
        }

        return Spans.In(work.Activity, (Conclusion: _conclusion, Work: work), static (state, activity) =>
            state.Conclusion.Conclude(state.Work.Record!, state.Work.Result, activity, state.Work.OwnBytes));
    }

    /// <summary>
    /// Reads the record's key and value (on the worker about to run its handler) from its own bytes, or from the
    /// captures' while it is the record just consumed. False: it cannot be read (<see cref="RecordWork{TKey, TValue}.Unread"/>,
    /// the exception consuming it would have thrown).
    /// </summary>
    private bool TryRead(RecordWork<TKey, TValue> work)
    {
        ConsumeResult<TKey, TValue> record = work.Record!;
        Message<TKey, TValue> message = record.Message;
        RawBytesCapture<TKey> keys = _client.KeyCapture;
        RawBytesCapture<TValue> values = _client.ValueCapture;
        ErrorCode failing = ErrorCode.Local_KeyDeserialization;
        try
        {
            bool own = work.OwnBytes is not null;
            (byte[]? ownKey, byte[]? ownValue) = work.OwnBytes ?? default;
            ReadOnlySpan<byte> key = own ? ownKey : keys.Last;
            message.Key = keys.Read(
                key,
                own ? ownKey is null : keys.LastIsNull,
                new SerializationContext(MessageComponentType.Key, record.Topic, message.Headers));
            failing = ErrorCode.Local_ValueDeserialization;
            ReadOnlySpan<byte> value = own ? ownValue : values.Last;
            message.Value = values.Read(
                value,
                own ? ownValue is null : values.LastIsNull,
                new SerializationContext(MessageComponentType.Value, record.Topic, message.Headers));
            return true;
        }
        catch (Exception e)
        {
            (byte[]? key, byte[]? value) = work.OwnBytes ?? (keys.ToArray(), values.ToArray());
            var raw = new ConsumeResult<byte[], byte[]>
            {
                TopicPartitionOffset = record.TopicPartitionOffset,
                Message = new Message<byte[], byte[]>
                {
                    Timestamp = message.Timestamp,
                    Headers = message.Headers,
                    Key = key!,
                    Value = value!,
                },
                IsPartitionEOF = false,
            };
            work.Unread = new ConsumeException(raw, new Error(failing), e);
            return false;
        }
    }
}
