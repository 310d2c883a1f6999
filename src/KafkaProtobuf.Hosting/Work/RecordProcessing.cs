using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Conclusion;
using KafkaProtobuf.Hosting.Consuming;
using KafkaProtobuf.Hosting.Diagnostics;
using KafkaProtobuf.Hosting.Handling;
using KafkaProtobuf.Hosting.Retrying;
using KafkaProtobuf.Hosting.Scheduling;

namespace KafkaProtobuf.Hosting.Intake;

/// <summary>
/// Records offered to the scheduler one by one, each handled by the record handler on a worker (or the loop) and
/// concluded in its partition's order. In partition order, a record's key and value are read from its bytes when a
/// handler takes it, not when it is consumed: a record read ahead holds its bytes once (they are also what its dead
/// letter is written from). A record that cannot be read then is concluded in its turn as it would have been at
/// consume: dead-lettered, or read again later. In key order it is read at consume: records of other keys after one
/// whose writer's schema is unavailable could otherwise be handled before it is found, and handled again when the
/// partition goes back to it.
/// </summary>
internal sealed class RecordIntake<TKey, TValue> : IIntake<TKey, TValue, ParallelRecord<TKey, TValue>>
{
    private readonly ConsumeStep<TKey, TValue> _step;
    private readonly RecordConclusion<TKey, TValue> _conclusion;
    private readonly HandlerRunner<ConsumeResult<TKey, TValue>> _handler;
    private readonly ConsumerTracing _tracing;
    private readonly RetryTiers? _retries;
    private readonly bool _perKey;
    private readonly bool _readsAtHandOver;
    private ParallelRecord<TKey, TValue>? _spare; // a record the scheduler did not keep (its handler completed at once): used again

    internal RecordIntake(
        ConsumeStep<TKey, TValue> step,
        RecordConclusion<TKey, TValue> conclusion,
        HandlerRunner<ConsumeResult<TKey, TValue>> handler,
        ConsumerTracing tracing,
        RetryTiers? retries,
        bool perKey)
    {
        _step = step;
        _conclusion = conclusion;
        _handler = handler;
        _tracing = tracing;
        _retries = retries;
        _perKey = perKey;
        _readsAtHandOver = !perKey;
        step.Keys.ReadsLater = step.Values.ReadsLater = _readsAtHandOver;
    }

    public TimeSpan Wait(TimeSpan longest) => longest;

    public bool OfferDue(PartitionScheduler<ParallelRecord<TKey, TValue>> scheduler) => true;

    public bool OfferRecord(PartitionScheduler<ParallelRecord<TKey, TValue>> scheduler, ConsumeResult<TKey, TValue> record)
    {
        ParallelRecord<TKey, TValue> taken = _spare ?? new ParallelRecord<TKey, TValue>();
        HandlerResult? failed = _conclusion.Unwritten.TryTake(record.Topic, record.Partition, record.Offset, out HandlerResult result) ? result : null;
        taken.Load(record, _retries?.AsOriginal(record) ?? record, _perKey ? _step.Keys.Hash() : 0, failed);
        if (!scheduler.Offer(taken, out bool kept))
        {
            return false;
        }

        _spare = kept ? null : taken;
        return true;
    }

    // Never run on the loop at once: it waits for the records before it in its sequence, then is dead-lettered in order.
    public bool OfferPoison(PartitionScheduler<ParallelRecord<TKey, TValue>> scheduler, ConsumeException poison) =>
        scheduler.Offer(ParallelRecord<TKey, TValue>.OfPoison(poison, _perKey), out _);

    public bool CutBefore(PartitionScheduler<ParallelRecord<TKey, TValue>> scheduler, TopicPartitionOffset record) => true;

    public void Revoked(IReadOnlyList<TopicPartition> partitions)
    {
    }

    public void Ended()
    {
    }

    /// <summary>A worker (or the loop) runs the handler, with the record's span current for the handler only.</summary>
    public ValueTask<HandlerResult> HandleAsync(ParallelRecord<TKey, TValue> record)
    {
        if (_readsAtHandOver && !TryRead(record))
        {
            // Not the handler's failure: the loop concludes it in its turn (see Conclude), holding what comes after it in its sequence until then.
            return new ValueTask<HandlerResult>(new HandlerResult(HandlerOutcome.DeadLetter, record.Unread));
        }

        Activity? activity = record.Activity = _tracing.Start(record.Record!);
        try
        {
            return _handler.RunAsync(record.HandlerView!, activity); // an awaiting handler carries the span on in its context
        }
        finally
        {
            Spans.Leave(activity);
        }
    }

    /// <summary>The record outlives this consume: it takes its own copy of its bytes (for a possible dead letter) from the capture.</summary>
    public void Retain(ParallelRecord<TKey, TValue> record)
    {
        if (record.Unread is { } poison)
        {
            record.HeldBytes = ReadAhead.Charge(poison.ConsumerRecord); // consumed as poison (one read when taken is never kept unread): its bytes are in its exception
            return;
        }

        (byte[]? key, byte[]? value) = (_step.Keys.ToArray(), _step.Values.ToArray());
        record.OwnBytes = (key, value);
        record.HeldBytes = ReadAhead.Charge(key, value, readAtConsume: !_readsAtHandOver);
    }

    public AfterConclusion Conclude(ParallelRecord<TKey, TValue> record)
    {
        if (record.Unread is { } unread)
        {
            // Sorted as at consume (one consumed as poison sorts as poison again).
            return _step.SortUnread(unread) switch
            {
                Consumed.Poison => _conclusion.DeadLetterPoison(unread),
                Consumed.SchemaUnavailable => AfterConclusion.ReadAgain, // the scheduler drops what was read after it and reads it again after a delay
                _ => AfterConclusion.Stop, // the schema source refused the credentials: the consumer was told to stop
            };
        }

        return Spans.In(record.Activity, (Conclusion: _conclusion, Record: record), static (state, activity) =>
            state.Conclusion.Conclude(state.Record.Record!, state.Record.Result, activity, state.Record.OwnBytes));
    }

    public void Drop(ParallelRecord<TKey, TValue> record) => record.Activity?.Dispose();

    /// <summary>
    /// Reads the record's key and value (on the worker about to run its handler) from its own bytes, or from the
    /// capture's while it is the record just consumed. False: it cannot be read (<see cref="ParallelRecord{TKey, TValue}.Unread"/>,
    /// the exception consuming it would have thrown).
    /// </summary>
    private bool TryRead(ParallelRecord<TKey, TValue> held)
    {
        ConsumeResult<TKey, TValue> record = held.Record!;
        Message<TKey, TValue> message = record.Message;
        ErrorCode failing = ErrorCode.Local_KeyDeserialization;
        try
        {
            bool own = held.OwnBytes is not null;
            (byte[]? ownKey, byte[]? ownValue) = held.OwnBytes ?? default;
            ReadOnlySpan<byte> key = own ? ownKey : _step.Keys.Last;
            message.Key = _step.Keys.Read(key, own ? ownKey is null : _step.Keys.LastIsNull, new SerializationContext(MessageComponentType.Key, record.Topic, message.Headers));
            failing = ErrorCode.Local_ValueDeserialization;
            ReadOnlySpan<byte> value = own ? ownValue : _step.Values.Last;
            message.Value = _step.Values.Read(value, own ? ownValue is null : _step.Values.LastIsNull, new SerializationContext(MessageComponentType.Value, record.Topic, message.Headers));
            return true;
        }
        catch (Exception e)
        {
            (byte[]? key, byte[]? value) = held.OwnBytes ?? (_step.Keys.ToArray(), _step.Values.ToArray());
            var raw = new ConsumeResult<byte[], byte[]>
            {
                TopicPartitionOffset = record.TopicPartitionOffset,
                Message = new Message<byte[], byte[]> { Timestamp = message.Timestamp, Headers = message.Headers, Key = key!, Value = value! },
                IsPartitionEOF = false,
            };
            held.Unread = new ConsumeException(raw, new Error(failing), e);
            return false;
        }
    }

    public void Pause(TopicPartition partition) => _step.Pause(partition);

    public void Resume(TopicPartition partition, TopicPartitionOffset? readAgainFrom) => _step.Resume(partition, readAgainFrom);
}
