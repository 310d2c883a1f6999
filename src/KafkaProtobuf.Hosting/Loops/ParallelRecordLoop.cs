using System;
using System.Collections.Generic;
using System.Threading;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Consuming;
using KafkaProtobuf.Hosting.Intake;
using KafkaProtobuf.Hosting.Scheduling;

namespace KafkaProtobuf.Hosting.Loops;

/// <summary>
/// Partition-parallel mode (<see cref="KafkaProtobufConsumerOptions.MaxConcurrentHandlers"/> above 1, retry topics, or a
/// batch handler whose batches are each one partition's): the loop thread consumes, and its intake offers what it takes
/// to a <see cref="PartitionScheduler{TRecord}"/>, which runs handlers on workers and concludes each record or batch in
/// its partition's order.
/// </summary>
/// <typeparam name="TKey">The records' key type.</typeparam>
/// <typeparam name="TValue">The records' value type.</typeparam>
/// <typeparam name="TRecord">What is scheduled: a record or a batch.</typeparam>
internal sealed class ScheduledLoop<TKey, TValue, TRecord> : IConsumeLoop
    where TRecord : ScheduledWork
{
    private static readonly TimeSpan BusyWait = TimeSpan.FromMilliseconds(2);
    private static readonly TimeSpan IdleWait = TimeSpan.FromMilliseconds(50);

    private readonly LoopParts<TKey, TValue> _parts;
    private readonly IIntake<TKey, TValue, TRecord> _intake;
    private readonly PartitionScheduler<TRecord> _scheduler;

    internal ScheduledLoop(LoopParts<TKey, TValue> parts, IIntake<TKey, TValue, TRecord> intake, SchedulerSettings settings)
    {
        _parts = parts;
        _intake = intake;
        _scheduler = new PartitionScheduler<TRecord>(intake, settings, stopping: parts.Stopping);
    }

    public long MostHeldBytes => _scheduler.MostHeldBytes;

    public void Run()
    {
        try
        {
            Loop();
        }
        finally
        {
            _intake.Ended();
        }
    }

    public bool Revoke(IReadOnlyList<TopicPartition> partitions)
    {
        bool goOn = _scheduler.Revoke(partitions);
        _intake.Revoked(partitions);
        return goOn;
    }

    /// <summary>Concludes what came back, resumes what is due, consumes, offers.</summary>
    private void Loop()
    {
        PartitionScheduler<TRecord> scheduler = _scheduler;
        while (!_parts.Stopping.IsCancellationRequested)
        {
            if (!scheduler.ConcludeHandedBack())
            {
                return;
            }

            scheduler.ResumeDue();
            if (!_intake.OfferDue(scheduler))
            {
                return;
            }

            Consumed consumed = _parts.Consume(_intake.Wait(scheduler.Busy ? BusyWait : IdleWait), out ConsumeResult<TKey, TValue>? record, out ConsumeException? unread);
            if (consumed is Consumed.Stopping or Consumed.Failed)
            {
                break;
            }

            if (consumed == Consumed.Poison && !_intake.OfferPoison(scheduler, unread!))
            {
                return;
            }

            if (consumed == Consumed.SchemaUnavailable)
            {
                // This partition reads the record again after a delay; the others go on.
                TopicPartitionOffset position = unread!.ConsumerRecord.TopicPartitionOffset;
                if (!_intake.CutBefore(scheduler, position))
                {
                    return;
                }

                scheduler.ReadAgainLater(position);
            }
            else if (consumed == Consumed.Record && _parts.Retries is not null && _parts.Retries.NotYetDue(record!, out TimeSpan wait))
            {
                // A retry topic's record before its time: its partition waits, paused; the others go on.
                if (!_intake.CutBefore(scheduler, record!.TopicPartitionOffset))
                {
                    return;
                }

                scheduler.ReadAgainLater(record.TopicPartitionOffset, wait);
            }
            else if (consumed == Consumed.Record && !_intake.OfferRecord(scheduler, record!))
            {
                return;
            }
        }

        // Shutting down: start nothing more, let the records in hand finish (their handlers are cancelled when the
        // host's shutdown timeout runs out), and store what finished; Close then commits it. A killed consumer stores nothing.
        if (!_parts.Abandoned)
        {
            using var giveUp = new CancellationTokenSource();
            using CancellationTokenRegistration _ = _parts.AbortHandlers.Register(() => giveUp.CancelAfter(LoopParts<TKey, TValue>.CloseGrace)); // handlers that ignore their token
            scheduler.Drain(giveUp.Token);
        }
    }
}
