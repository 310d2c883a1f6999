using System;
using System.Collections.Generic;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Batching;
using KafkaProtobuf.Hosting.Consuming;
using KafkaProtobuf.Hosting.Handling;
using KafkaProtobuf.Hosting.Scheduling;

namespace KafkaProtobuf.Hosting.Loops;

/// <summary>
/// Batches of one partition each, several partitions' at once (a batch handler without
/// <see cref="BatchOptions.AcrossPartitions"/>): the loop thread collects records into batches and hands each batch to
/// the <see cref="PartitionScheduler{TWork}"/>, which runs its handler on a worker and concludes it in its partition's
/// order, as one record would be. A poison record or a record read again later cuts its partition's batch: what came
/// before it goes on, in order. A partition the scheduler moved back drops what was collected of it: it is read again.
/// </summary>
internal sealed class ParallelBatchLoop<TKey, TValue> : IConsumeLoop
{
    private readonly LoopContext<TKey, TValue> _context;
    private readonly BatchCollector<TKey, TValue> _collector;
    private readonly PartitionScheduler<RecordBatch<TKey, TValue>> _scheduler;

    /// <param name="context">What every loop works with.</param>
    /// <param name="collector">Fills the batches.</param>
    /// <param name="scheduler">Runs and concludes the batches.</param>
    internal ParallelBatchLoop(
        LoopContext<TKey, TValue> context, BatchCollector<TKey, TValue> collector, PartitionScheduler<RecordBatch<TKey, TValue>> scheduler)
    {
        _context = context;
        _collector = collector;
        _scheduler = scheduler;
    }

    public ConsumerFailure? Run()
    {
        try
        {
            return Loop();
        }
        finally
        {
            _collector.DiscardAll(); // not handed over: not committed, read again
        }
    }

    public ConsumerFailure? Revoke(IReadOnlyList<TopicPartition> partitions)
    {
        bool goOn = _scheduler.Revoke(partitions);
        DiscardMovedBack();
        _collector.Discard(partitions);
        _context.LetGo(partitions);
        return goOn ? null : _scheduler.Failure;
    }

    /// <summary>Concludes what came back, resumes what is due, hands over due batches, consumes, collects.</summary>
    private ConsumerFailure? Loop()
    {
        LoopContext<TKey, TValue> context = _context;
        BatchCollector<TKey, TValue> collector = _collector;
        PartitionScheduler<RecordBatch<TKey, TValue>> scheduler = _scheduler;
        while (!context.Stopping.IsCancellationRequested)
        {
            bool goOn = scheduler.ConcludeHandedBack();
            DiscardMovedBack();
            if (!goOn || !OfferDue())
            {
                return scheduler.Failure; // a conclusion ended the loop
            }

            context.ApplyOperatorRequests();
            context.Pausing.ResumeDue();
            TimeSpan longest = scheduler.Busy ? ParallelRecordLoop<TKey, TValue>.BusyWait : ParallelRecordLoop<TKey, TValue>.IdleWait;
            TimeSpan wait = collector.UntilNextDue is { } due && due < longest ? due : longest;
            Consumed consumed = context.Consume(wait, out ConsumeResult<TKey, TValue>? record, out ConsumeException? unread);
            if (consumed == Consumed.Failed)
            {
                return context.EndOf(consumed);
            }

            if (consumed == Consumed.Stopping)
            {
                break;
            }

            if (!Take(consumed, record, unread))
            {
                return scheduler.Failure;
            }
        }

        context.Drain(scheduler);
        return null;
    }

    /// <summary>
    /// What one consume brought, collected or handed over in its partition's order. False: a conclusion ended the
    /// loop.
    /// </summary>
    private bool Take(Consumed consumed, ConsumeResult<TKey, TValue>? record, ConsumeException? unread)
    {
        ConsumerClient<TKey, TValue> client = _context.Client;
        RawBytesCapture<TKey> keys = client.KeyCapture;
        RawBytesCapture<TValue> values = client.ValueCapture;
        switch (consumed)
        {
            case Consumed.Poison:
                return OfferCut(unread!.ConsumerRecord.TopicPartitionOffset) && Offer(RecordBatch<TKey, TValue>.OfPoison(unread));
            case Consumed.SchemaUnavailable:
                // This partition reads the record again after a delay; the others go on.
                TopicPartitionOffset position = unread!.ConsumerRecord.TopicPartitionOffset;
                _scheduler.ReadAgainLater(position, PartitionPauses.SchemaUnavailable);
                return OfferCut(position);
            case Consumed.Record when _context.NotYetDue(record!, out TimeSpan wait):
                // A retry topic's record before its time: its partition waits, paused; the others go on.
                _scheduler.ReadAgainLater(record!.TopicPartitionOffset, PartitionPauses.RetryNotDue, wait);
                return OfferCut(record.TopicPartitionOffset);
            case Consumed.Record:
                ConsumeResult<TKey, TValue> view = _context.AsOriginal(record!);
                if (_context.TryTakeUnwritten(record!, out HandlerResult failed))
                {
                    // Read again to write its copy: in its partition's order, a batch of its own the handler never sees.
                    return OfferCut(record!.TopicPartitionOffset)
                        && Offer(RecordBatch<TKey, TValue>.OfFailed(
                            record!, view, keys.Last, keys.LastIsNull, values.Last, values.LastIsNull, failed));
                }

                return _collector.Add(record!, view, keys.Last, keys.LastIsNull, values.Last, values.LastIsNull) is not { } full
                    || Offer(full);
            default:
                return true; // nothing
        }
    }

    /// <summary>Hands over the batches whose wait ran out. False: a conclusion ended the loop.</summary>
    private bool OfferDue()
    {
        while (_collector.TryTakeDue(out RecordBatch<TKey, TValue> due))
        {
            if (!Offer(due))
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>
    /// A record of the partition cannot join a batch: what was collected of the partition before it is handed over
    /// first.
    /// </summary>
    private bool OfferCut(TopicPartitionOffset record) => _collector.Cut(record.Topic, record.Partition) is not { } before || Offer(before);

    private bool Offer(RecordBatch<TKey, TValue> batch)
    {
        bool goOn = _scheduler.Offer(batch, out _);
        DiscardMovedBack();
        return goOn;
    }

    /// <summary>
    /// Partitions moved back to a record whose copy was not written: what was collected of them since belongs to the old
    /// reading and must not reach the handler.
    /// </summary>
    private void DiscardMovedBack()
    {
        IReadOnlyList<TopicPartition> movedBack = _scheduler.MovedBack;
        for (int i = 0; i < movedBack.Count; i++) // no enumerator: this runs on every turn of the loop
        {
            _collector.Discard(movedBack[i]);
        }
    }
}
