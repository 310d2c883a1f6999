using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Batching;
using KafkaProtobuf.Hosting.Consuming;
using KafkaProtobuf.Hosting.Handling;
using KafkaProtobuf.Hosting.Scheduling;

namespace KafkaProtobuf.Hosting.Service;

/// <summary>
/// A batch handler (<c>HandleBatch</c>): records are collected into batches (<see cref="BatchCollector{TKey, TValue}"/>)
/// and each batch is run, retried and concluded as one record would be. One partition's batches go through the
/// partition-parallel loop and its scheduler (<see cref="KafkaProtobufConsumerOptions.MaxConcurrentRecords"/> batches at
/// once, 1 by default); batches across partitions are handled one at a time on the loop thread, as in sequential mode.
/// A poison record or a record read again later cuts its partition's batch: what came before it goes on, in order.
/// </summary>
internal sealed partial class KafkaProtobufConsumerService<TKey, TValue> : IRecordScheduling<RecordBatch<TKey, TValue>>, KafkaProtobufConsumerService<TKey, TValue>.IIntake<RecordBatch<TKey, TValue>>
{
    // Across partitions, the loop's consume waits at most this long with a batch open, so that shutdown is not held up by a long MaxWait.
    private static readonly TimeSpan LongestConsumeWithBatchOpen = TimeSpan.FromMilliseconds(100);

    private BatchRunner<TKey, TValue> _batchRunner = null!;
    private BatchCollector<TKey, TValue>? _collector;
    private PartitionScheduler<RecordBatch<TKey, TValue>>? _batchScheduler;

    private void StartBatches(Func<IServiceProvider, IReadOnlyList<ConsumeResult<TKey, TValue>>, CancellationToken, Task> handler)
    {
        var runner = new HandlerRunner<IReadOnlyList<ConsumeResult<TKey, TValue>>>(
            Name, handler, _registration.HandlerNeedsScope, _services, BatchRunner<TKey, TValue>.Describe, static records => records.Count,
            _options.HandlerFailures, _status, _logger, _stopTaking.Token, _abortHandler.Token);
        _batchRunner = new BatchRunner<TKey, TValue>(runner, _options.Batches.WhenAttemptsRunOut, Name, _logger);
        _collector = new BatchCollector<TKey, TValue>(_options.Batches);
    }

    private void RunBatches()
    {
        try
        {
            if (_options.Batches.AcrossPartitions)
            {
                RunBatchesOnLoop();
            }
            else
            {
                _batchScheduler = new PartitionScheduler<RecordBatch<TKey, TValue>>(this, NewSchedulerSettings(), stopping: _stopTaking.Token);
                RunScheduled(_batchScheduler);
            }
        }
        finally
        {
            _collector!.DiscardAll(); // not handed over: not committed, read again
        }
    }

    /// <summary>Batches across partitions: collected, then handled and concluded on the loop thread, one at a time.</summary>
    private void RunBatchesOnLoop()
    {
        BatchCollector<TKey, TValue> collector = _collector!;
        while (!_stopTaking.IsCancellationRequested)
        {
            if (collector.TryTakeDue(out RecordBatch<TKey, TValue> due) && !HandleOnLoop(due))
            {
                return;
            }

            TimeSpan? wait = collector.UntilNextDue is { } left ? (left < LongestConsumeWithBatchOpen ? left : LongestConsumeWithBatchOpen) : null;
            Consumed consumed = Consume(wait, out ConsumeResult<TKey, TValue>? record, out ConsumeException? unread);
            switch (consumed)
            {
                case Consumed.Record when _conclusion!.Unwritten.TryTake(record!.Topic, record.Partition, record.Offset, out HandlerResult failed):
                    // Read again to write its dead letter: after what was collected before it, and not handed to the handler again.
                    if ((collector.Cut(record.Topic, record.Partition) is { } earlier && !HandleOnLoop(earlier)) || !GoOnAfter(_conclusion!.Conclude(record, failed, null, ownBytes: null)))
                    {
                        return;
                    }

                    break;
                case Consumed.Record:
                    if (collector.Add(record!, _step!.Keys.Last, _step!.Keys.LastIsNull, _step!.Values.Last, _step!.Values.LastIsNull) is { } full && !HandleOnLoop(full))
                    {
                        return;
                    }

                    break;
                case Consumed.Poison or Consumed.SchemaUnavailable:
                    TopicPartitionOffset position = unread!.ConsumerRecord.TopicPartitionOffset;
                    if ((collector.Cut(position.Topic, position.Partition) is { } before && !HandleOnLoop(before)) || !GoOnAfter(ConcludeUnreadOnLoop(consumed, unread)))
                    {
                        return;
                    }

                    break;
                case Consumed.Nothing:
                    continue;
                default:
                    return; // stopping, or failed
            }
        }
    }

    /// <summary>Runs and concludes a batch on the loop thread. False: the consumer stops.</summary>
    private bool HandleOnLoop(RecordBatch<TKey, TValue> batch)
    {
        AfterConclusion after;
        using (Activity? activity = _tracing.StartBatch(batch))
        {
            ValueTask<HandlerResult> run = _batchRunner.RunAsync(batch, activity);
            batch.Result = run.IsCompletedSuccessfully ? run.Result : run.AsTask().GetAwaiter().GetResult();
            after = _conclusion!.Conclude(batch, activity);
        }

        if (after == AfterConclusion.ReadAgain)
        {
            // The failed dead letter moved its partition back; the other partitions' records after it are read again too.
            foreach (TopicPartitionOffset position in batch.ReadAgainPositions())
            {
                _step!.Seek(position);
            }
        }

        return GoOnAfter(after);
    }

    /// <summary>
    /// Partitions taken away: their records in open batches are their new owner's (and, should this member get them
    /// back, read again from the committed offset: an old batch handed over then would store an offset past records of
    /// the new reading not yet handled).
    /// </summary>
    private void RevokeCollected(IEnumerable<TopicPartition> partitions)
    {
        if (_collector is null)
        {
            return;
        }

        foreach (TopicPartition partition in partitions)
        {
            _collector.Discard(partition);
        }
    }

    TimeSpan IIntake<RecordBatch<TKey, TValue>>.Wait(bool busy)
    {
        TimeSpan wait = busy ? BusyWait : IdleWait;
        return _collector!.UntilNextDue is { } due && due < wait ? due : wait;
    }

    bool IIntake<RecordBatch<TKey, TValue>>.OfferDue(PartitionScheduler<RecordBatch<TKey, TValue>> scheduler)
    {
        while (_collector!.TryTakeDue(out RecordBatch<TKey, TValue> due))
        {
            if (!scheduler.Offer(due, out _))
            {
                return false;
            }
        }

        return true;
    }

    bool IIntake<RecordBatch<TKey, TValue>>.OfferRecord(PartitionScheduler<RecordBatch<TKey, TValue>> scheduler, ConsumeResult<TKey, TValue> record)
    {
        ConsumeResult<TKey, TValue> view = _retries?.AsOriginal(record) ?? record;
        if (_conclusion!.Unwritten.TryTake(record.Topic, record.Partition, record.Offset, out HandlerResult failed))
        {
            // Read again to write its dead letter: in its partition's order, a batch of its own the handler never sees.
            return ((IIntake<RecordBatch<TKey, TValue>>)this).CutBefore(scheduler, record.TopicPartitionOffset)
                && scheduler.Offer(RecordBatch<TKey, TValue>.OfFailed(record, view, _step!.Keys.Last, _step!.Keys.LastIsNull, _step!.Values.Last, _step!.Values.LastIsNull, failed), out _);
        }

        return _collector!.Add(record, view, _step!.Keys.Last, _step!.Keys.LastIsNull, _step!.Values.Last, _step!.Values.LastIsNull) is not { } full || scheduler.Offer(full, out _);
    }

    bool IIntake<RecordBatch<TKey, TValue>>.OfferPoison(PartitionScheduler<RecordBatch<TKey, TValue>> scheduler, ConsumeException poison) =>
        ((IIntake<RecordBatch<TKey, TValue>>)this).CutBefore(scheduler, poison.ConsumerRecord.TopicPartitionOffset) && scheduler.Offer(RecordBatch<TKey, TValue>.OfPoison(poison), out _);

    bool IIntake<RecordBatch<TKey, TValue>>.CutBefore(PartitionScheduler<RecordBatch<TKey, TValue>> scheduler, TopicPartitionOffset record) =>
        _collector!.Cut(record.Topic, record.Partition) is not { } before || scheduler.Offer(before, out _);

    /// <summary>A worker (or the loop) runs the batch handler, with the batch's span current for the handler only.</summary>
    ValueTask<HandlerResult> IRecordScheduling<RecordBatch<TKey, TValue>>.HandleAsync(RecordBatch<TKey, TValue> batch)
    {
        Activity? activity = batch.Activity = _tracing.StartBatch(batch);
        try
        {
            return _batchRunner.RunAsync(batch, activity);
        }
        finally
        {
            LeaveSpan(activity);
        }
    }

    void IRecordScheduling<RecordBatch<TKey, TValue>>.Retain(RecordBatch<TKey, TValue> batch)
    {
        // A batch copied its records' bytes as it took them.
        batch.HeldBytes = batch.Poison is { } poison ? ReadAhead.Charge(poison.ConsumerRecord) : ReadAhead.Charge(batch.ByteCount, batch.Count);
    }

    AfterConclusion IRecordScheduling<RecordBatch<TKey, TValue>>.Conclude(RecordBatch<TKey, TValue> batch)
    {
        AfterConclusion after = batch.Poison is { } poison
            ? _conclusion!.DeadLetterPoison(poison)
            : InSpan(batch.Activity, (Service: this, Batch: batch), static (state, activity) => state.Service._conclusion!.Conclude(state.Batch, activity));
        if (after == AfterConclusion.ReadAgain)
        {
            // Read again from the record whose dead letter failed (a poison record's, or one of the batch's): what the
            // collector took of its partition since then belongs to the old reading and must not reach the handler.
            _collector!.Discard(batch.Position.TopicPartition);
        }

        return after;
    }

    void IRecordScheduling<RecordBatch<TKey, TValue>>.Drop(RecordBatch<TKey, TValue> batch)
    {
        batch.Activity?.Dispose();
        batch.Release();
    }

    void IRecordScheduling<RecordBatch<TKey, TValue>>.Pause(TopicPartition partition) => Pause(partition);

    void IRecordScheduling<RecordBatch<TKey, TValue>>.Resume(TopicPartition partition, TopicPartitionOffset? readAgainFrom) => Resume(partition, readAgainFrom);
}
