using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Batching;
using KafkaProtobuf.Hosting.Conclusion;
using KafkaProtobuf.Hosting.Consuming;
using KafkaProtobuf.Hosting.Diagnostics;
using KafkaProtobuf.Hosting.Handling;
using KafkaProtobuf.Hosting.Retrying;
using KafkaProtobuf.Hosting.Scheduling;

namespace KafkaProtobuf.Hosting.Intake;

/// <summary>
/// Records collected into one partition's batches (<see cref="BatchCollector{TKey, TValue}"/>), each batch offered to the
/// scheduler and run, retried and concluded as one record would be. A poison record or a record read again later cuts
/// its partition's batch: what came before it goes on, in order.
/// </summary>
internal sealed class BatchIntake<TKey, TValue> : IIntake<TKey, TValue, RecordBatch<TKey, TValue>>
{
    private readonly ConsumeStep<TKey, TValue> _step;
    private readonly RecordConclusion<TKey, TValue> _conclusion;
    private readonly BatchRunner<TKey, TValue> _runner;
    private readonly BatchCollector<TKey, TValue> _collector;
    private readonly ConsumerTracing _tracing;
    private readonly RetryTiers? _retries;

    internal BatchIntake(
        ConsumeStep<TKey, TValue> step,
        RecordConclusion<TKey, TValue> conclusion,
        BatchRunner<TKey, TValue> runner,
        BatchCollector<TKey, TValue> collector,
        ConsumerTracing tracing,
        RetryTiers? retries)
    {
        _step = step;
        _conclusion = conclusion;
        _runner = runner;
        _collector = collector;
        _tracing = tracing;
        _retries = retries;
    }

    public TimeSpan Wait(TimeSpan longest) => _collector.UntilNextDue is { } due && due < longest ? due : longest;

    public bool OfferDue(PartitionScheduler<RecordBatch<TKey, TValue>> scheduler)
    {
        while (_collector.TryTakeDue(out RecordBatch<TKey, TValue> due))
        {
            if (!scheduler.Offer(due, out _))
            {
                return false;
            }
        }

        return true;
    }

    public bool OfferRecord(PartitionScheduler<RecordBatch<TKey, TValue>> scheduler, ConsumeResult<TKey, TValue> record)
    {
        ConsumeResult<TKey, TValue> view = _retries?.AsOriginal(record) ?? record;
        if (_conclusion.Unwritten.TryTake(record.Topic, record.Partition, record.Offset, out HandlerResult failed))
        {
            // Read again to write its dead letter: in its partition's order, a batch of its own the handler never sees.
            return CutBefore(scheduler, record.TopicPartitionOffset)
                && scheduler.Offer(RecordBatch<TKey, TValue>.OfFailed(record, view, _step.Keys.Last, _step.Keys.LastIsNull, _step.Values.Last, _step.Values.LastIsNull, failed), out _);
        }

        return _collector.Add(record, view, _step.Keys.Last, _step.Keys.LastIsNull, _step.Values.Last, _step.Values.LastIsNull) is not { } full || scheduler.Offer(full, out _);
    }

    public bool OfferPoison(PartitionScheduler<RecordBatch<TKey, TValue>> scheduler, ConsumeException poison) =>
        CutBefore(scheduler, poison.ConsumerRecord.TopicPartitionOffset) && scheduler.Offer(RecordBatch<TKey, TValue>.OfPoison(poison), out _);

    public bool CutBefore(PartitionScheduler<RecordBatch<TKey, TValue>> scheduler, TopicPartitionOffset record) =>
        _collector.Cut(record.Topic, record.Partition) is not { } before || scheduler.Offer(before, out _);

    public void Revoked(IReadOnlyList<TopicPartition> partitions) => _collector.Discard(partitions);

    public void Ended() => _collector.DiscardAll();

    /// <summary>A worker (or the loop) runs the batch handler, with the batch's span current for the handler only.</summary>
    public ValueTask<HandlerResult> HandleAsync(RecordBatch<TKey, TValue> batch)
    {
        Activity? activity = batch.Activity = _tracing.StartBatch(batch);
        try
        {
            return _runner.RunAsync(batch, activity);
        }
        finally
        {
            Spans.Leave(activity);
        }
    }

    // A batch copied its records' bytes as it took them.
    public void Retain(RecordBatch<TKey, TValue> batch) =>
        batch.HeldBytes = batch.Poison is { } poison ? ReadAhead.Charge(poison.ConsumerRecord) : ReadAhead.Charge(batch.ByteCount, batch.Count);

    public AfterConclusion Conclude(RecordBatch<TKey, TValue> batch)
    {
        AfterConclusion after = batch.Poison is { } poison
            ? _conclusion.DeadLetterPoison(poison)
            : Spans.In(batch.Activity, (Conclusion: _conclusion, Batch: batch), static (state, activity) => state.Conclusion.Conclude(state.Batch, activity));
        if (after == AfterConclusion.ReadAgain)
        {
            // Read again from the record whose dead letter failed (a poison record's, or one of the batch's): what the
            // collector took of its partition since then belongs to the old reading and must not reach the handler.
            _collector.Discard(batch.Position.TopicPartition);
        }

        return after;
    }

    public void Drop(RecordBatch<TKey, TValue> batch)
    {
        batch.Activity?.Dispose();
        batch.ReturnBytes();
    }

    public void Pause(TopicPartition partition) => _step.Pause(partition);

    public void Resume(TopicPartition partition, TopicPartitionOffset? readAgainFrom) => _step.Resume(partition, readAgainFrom);
}
