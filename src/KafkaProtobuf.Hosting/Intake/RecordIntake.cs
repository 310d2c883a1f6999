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

/// <summary>Records offered to the scheduler one by one, each handled by the record handler on a worker (or the loop) and concluded in its partition's order.</summary>
internal sealed class RecordIntake<TKey, TValue> : IIntake<TKey, TValue, ParallelRecord<TKey, TValue>>
{
    private readonly ConsumeStep<TKey, TValue> _step;
    private readonly RecordConclusion<TKey, TValue> _conclusion;
    private readonly HandlerRunner<ConsumeResult<TKey, TValue>> _handler;
    private readonly ConsumerTracing _tracing;
    private readonly RetryTiers? _retries;
    private readonly bool _perKey;
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
        if (record.Poison is { } poison)
        {
            record.HeldBytes = ReadAhead.Charge(poison.ConsumerRecord); // its bytes are in its exception
            return;
        }

        (byte[]? key, byte[]? value) = (_step.Keys.ToArray(), _step.Values.ToArray());
        record.OwnBytes = (key, value);
        record.HeldBytes = ReadAhead.Charge(key, value);
    }

    public AfterConclusion Conclude(ParallelRecord<TKey, TValue> record)
    {
        if (record.Poison is { } poison)
        {
            return _conclusion.DeadLetterPoison(poison);
        }

        return Spans.In(record.Activity, (Conclusion: _conclusion, Record: record), static (state, activity) =>
            state.Conclusion.Conclude(state.Record.Record!, state.Record.Result, activity, state.Record.OwnBytes));
    }

    public void Drop(ParallelRecord<TKey, TValue> record) => record.Activity?.Dispose();

    public void Pause(TopicPartition partition) => _step.Pause(partition);

    public void Resume(TopicPartition partition, TopicPartitionOffset? readAgainFrom) => _step.Resume(partition, readAgainFrom);
}
