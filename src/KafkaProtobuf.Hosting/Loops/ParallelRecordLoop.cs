using System;
using System.Collections.Generic;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Consuming;
using KafkaProtobuf.Hosting.Handling;
using KafkaProtobuf.Hosting.Scheduling;
using KafkaProtobuf.Hosting.Work;

namespace KafkaProtobuf.Hosting.Loops;

/// <summary>
/// Partition-parallel mode (<see cref="KafkaProtobufConsumerOptions.MaxConcurrentHandlers"/> above 1, or retry topics):
/// the loop thread consumes and hands each record to the <see cref="PartitionScheduler{TWork}"/>, which runs its handler
/// on a worker and concludes it in its partition's order.
/// </summary>
internal sealed class ParallelRecordLoop<TKey, TValue> : IConsumeLoop
{
    internal static readonly TimeSpan BusyWait = TimeSpan.FromMilliseconds(2);
    internal static readonly TimeSpan IdleWait = TimeSpan.FromMilliseconds(50);

    private readonly LoopContext<TKey, TValue> _context;
    private readonly PartitionScheduler<RecordWork<TKey, TValue>> _scheduler;
    private readonly bool _perKey;
    private RecordWork<TKey, TValue>? _spare; // a record the scheduler did not keep (it was concluded at once): used again

    /// <param name="context">What every loop works with.</param>
    /// <param name="scheduler">Runs and concludes the records.</param>
    /// <param name="perKey">Per-key order: each record's sequence is its key's.</param>
    internal ParallelRecordLoop(LoopContext<TKey, TValue> context, PartitionScheduler<RecordWork<TKey, TValue>> scheduler, bool perKey)
    {
        _context = context;
        _scheduler = scheduler;
        _perKey = perKey;
    }

    public ConsumerFailure? Run()
    {
        LoopContext<TKey, TValue> context = _context;
        PartitionScheduler<RecordWork<TKey, TValue>> scheduler = _scheduler;
        while (!context.Stopping.IsCancellationRequested)
        {
            if (!scheduler.ConcludeHandedBack())
            {
                return scheduler.Failure; // a conclusion ended the loop
            }

            context.ApplyOperatorRequests();
            context.Pausing.ResumeDue();
            Consumed consumed = context.Consume(
                scheduler.Busy ? BusyWait : IdleWait, out ConsumeResult<TKey, TValue>? record, out ConsumeException? unread);
            if (consumed == Consumed.Failed)
            {
                return context.EndOf(consumed);
            }

            if (consumed == Consumed.Stopping)
            {
                break;
            }

            if (consumed == Consumed.Record && context.NotYetDue(record!, out TimeSpan wait))
            {
                // a retry topic's record before its time: its partition waits, paused
                scheduler.ReadAgainLater(record!.TopicPartitionOffset, PartitionPauses.RetryNotDue, wait);
            }
            else if (consumed == Consumed.SchemaUnavailable)
            {
                // this partition reads it again after a delay; the others go on
                scheduler.ReadAgainLater(unread!.ConsumerRecord.TopicPartitionOffset, PartitionPauses.SchemaUnavailable);
            }
            else if (!Offer(consumed, record, unread))
            {
                return scheduler.Failure;
            }
        }

        context.Drain(scheduler);
        return null;
    }

    public ConsumerFailure? Revoke(IReadOnlyList<TopicPartition> partitions)
    {
        bool goOn = _scheduler.Revoke(partitions);
        _context.LetGo(partitions);
        return goOn ? null : _scheduler.Failure;
    }

    /// <summary>
    /// Hands a consumed record (or a poison one, dead-lettered in its turn) to the scheduler. False: a conclusion
    /// ended the loop.
    /// </summary>
    private bool Offer(Consumed consumed, ConsumeResult<TKey, TValue>? record, ConsumeException? unread)
    {
        ConsumerClient<TKey, TValue> client = _context.Client;
        if (consumed == Consumed.Poison)
        {
            // Never run on the loop at once: it waits for the records before it in its sequence, then is dead-lettered in order.
            return _scheduler.Offer(RecordWork<TKey, TValue>.OfPoison(unread!, _perKey, client.KeyCapture, client.ValueCapture), out _);
        }

        if (consumed != Consumed.Record)
        {
            return true;
        }

        RecordWork<TKey, TValue> work = _spare ?? new RecordWork<TKey, TValue>(client.KeyCapture, client.ValueCapture);
        HandlerResult? failed = _context.TryTakeUnwritten(record!, out HandlerResult result) ? result : null;
        work.Load(record!, _context.AsOriginal(record!), _perKey ? client.KeyCapture.Hash() : 0, failed);
        if (!_scheduler.Offer(work, out bool kept))
        {
            return false;
        }

        _spare = kept ? null : work;
        return true;
    }
}
