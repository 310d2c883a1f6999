using System.Collections.Generic;
using System.Diagnostics;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Consuming;
using KafkaProtobuf.Hosting.Handling;
using KafkaProtobuf.Hosting.Scheduling;

namespace KafkaProtobuf.Hosting.Service;

/// <summary>
/// Partition-parallel mode (<see cref="KafkaProtobufConsumerOptions.MaxConcurrentRecords"/> above 1, or a batch handler
/// whose batches are each one partition's): the loop thread consumes and offers what it takes to a
/// <see cref="PartitionScheduler{TRecord}"/>, which runs handlers on workers and hands each record (or batch) back here,
/// in its partition's order, to be concluded. This file: the loop, which both kinds share, and the side of the
/// scheduler's surface (<see cref="IRecordScheduling{TRecord}"/>) for single records; <c>.Batches.cs</c> has the batches'.
/// </summary>
internal sealed partial class KafkaProtobufConsumerService<TKey, TValue> : IRecordScheduling<ParallelRecord<TKey, TValue>>, KafkaProtobufConsumerService<TKey, TValue>.IIntake<ParallelRecord<TKey, TValue>>
{
    private static readonly System.TimeSpan BusyWait = System.TimeSpan.FromMilliseconds(2);
    private static readonly System.TimeSpan IdleWait = System.TimeSpan.FromMilliseconds(50);

    private PartitionScheduler<ParallelRecord<TKey, TValue>>? _scheduler;
    private ParallelRecord<TKey, TValue>? _spare; // a record the scheduler did not keep (its handler completed at once): used again

    /// <summary>How the scheduled loop turns what it consumed into what it offers the scheduler: records one by one, or batches.</summary>
    private interface IIntake<TRecord>
        where TRecord : ScheduledRecord
    {
        /// <summary>How long the next consume may wait.</summary>
        System.TimeSpan Wait(bool busy);

        /// <summary>Offers what is due without a new record (a batch whose wait ran out). False: a conclusion stopped the consumer.</summary>
        bool OfferDue(PartitionScheduler<TRecord> scheduler);

        /// <summary>Offers, or collects, a good record. False: a conclusion stopped the consumer.</summary>
        bool OfferRecord(PartitionScheduler<TRecord> scheduler, ConsumeResult<TKey, TValue> record);

        /// <summary>Offers a poison record in its partition's order, after what was collected before it. False: a conclusion stopped the consumer.</summary>
        bool OfferPoison(PartitionScheduler<TRecord> scheduler, ConsumeException poison);

        /// <summary>A record is read again later: offers what was collected of its partition before it. False: a conclusion stopped the consumer.</summary>
        bool CutBefore(PartitionScheduler<TRecord> scheduler, TopicPartitionOffset record);
    }

    /// <summary>The most kept records have counted at once against <see cref="KafkaProtobufConsumerOptions.MaxReadAheadBytes"/>.</summary>
    internal long MostHeldBytes => _scheduler?.MostHeldBytes ?? _batchScheduler?.MostHeldBytes ?? 0;

    private bool PerKey => _options.HandlingOrder == HandlingOrder.Key;

    private SchedulerSettings NewSchedulerSettings() =>
        SchedulerSettings.Of(_options.MaxConcurrentRecords, PerKey, _options.MaxReadAheadBytes, _options.ReadAgainDelay, _options.RevokeTimeout);

    private void RunPartitionParallel()
    {
        _scheduler = new PartitionScheduler<ParallelRecord<TKey, TValue>>(this, NewSchedulerSettings(), stopping: _stopTaking.Token);
        RunScheduled(_scheduler);
    }

    /// <summary>The loop of both kinds (records, batches: this class is the intake of each): conclude what came back, resume what is due, consume, offer.</summary>
    [System.Diagnostics.CodeAnalysis.SuppressMessage("Performance", "CA1859", Justification = "The service is the intake of both record types; the class type suggested does not convert to IIntake<TRecord> for an open TRecord.")]
    private void RunScheduled<TRecord>(PartitionScheduler<TRecord> scheduler)
        where TRecord : ScheduledRecord
    {
        IIntake<TRecord> intake = (IIntake<TRecord>)(object)this;
        while (!_stopTaking.IsCancellationRequested)
        {
            if (!scheduler.ConcludeHandedBack())
            {
                return;
            }

            scheduler.ResumeDue();
            if (!intake.OfferDue(scheduler))
            {
                return;
            }

            Consumed consumed = Consume(intake.Wait(scheduler.Busy), out ConsumeResult<TKey, TValue>? record, out ConsumeException? unread);
            if (consumed is Consumed.Stopping or Consumed.Failed)
            {
                break;
            }

            if (consumed == Consumed.Poison && !intake.OfferPoison(scheduler, unread!))
            {
                return;
            }

            if (consumed == Consumed.SchemaUnavailable)
            {
                // This partition reads the record again after a delay; the others go on.
                TopicPartitionOffset position = unread!.ConsumerRecord.TopicPartitionOffset;
                if (!intake.CutBefore(scheduler, position))
                {
                    return;
                }

                scheduler.ReadAgainLater(position);
                _probe?.MovedBack(Name, position, schemaUnavailable: true);
            }
            else if (consumed == Consumed.Record && _retries is not null && _retries.NotYetDue(record!, out System.TimeSpan wait))
            {
                // A retry topic's record before its time: its partition waits, paused; the others go on.
                if (!intake.CutBefore(scheduler, record!.TopicPartitionOffset))
                {
                    return;
                }

                scheduler.ReadAgainLater(record.TopicPartitionOffset, wait);
            }
            else if (consumed == Consumed.Record && !intake.OfferRecord(scheduler, record!))
            {
                return;
            }
        }

        // Shutting down: start nothing more, let the records in hand finish (their handlers are cancelled when the
        // host's shutdown timeout runs out), and store what finished; Close then commits it. A killed consumer stores nothing.
        if (!_abandoned)
        {
            using var giveUp = new CancellationTokenSource();
            using CancellationTokenRegistration _ = _abortHandler.Token.Register(() => giveUp.CancelAfter(CloseGrace)); // handlers that ignore their token
            scheduler.Drain(giveUp.Token);
        }
    }

    System.TimeSpan IIntake<ParallelRecord<TKey, TValue>>.Wait(bool busy) => busy ? BusyWait : IdleWait;

    bool IIntake<ParallelRecord<TKey, TValue>>.OfferDue(PartitionScheduler<ParallelRecord<TKey, TValue>> scheduler) => true;

    bool IIntake<ParallelRecord<TKey, TValue>>.OfferRecord(PartitionScheduler<ParallelRecord<TKey, TValue>> scheduler, ConsumeResult<TKey, TValue> record)
    {
        ParallelRecord<TKey, TValue> taken = _spare ?? new ParallelRecord<TKey, TValue>();
        HandlerResult? failed = _conclusion!.Unwritten.TryTake(record.Topic, record.Partition, record.Offset, out HandlerResult result) ? result : null;
        taken.Hold(record, _retries?.AsOriginal(record) ?? record, PerKey ? _step!.Keys.Hash() : 0, failed);
        if (!scheduler.Offer(taken, out bool kept))
        {
            return false;
        }

        _spare = kept ? null : taken;
        return true;
    }

    // Never run on the loop at once: it waits for the records before it in its sequence, then is dead-lettered in order.
    bool IIntake<ParallelRecord<TKey, TValue>>.OfferPoison(PartitionScheduler<ParallelRecord<TKey, TValue>> scheduler, ConsumeException poison) =>
        scheduler.Offer(ParallelRecord<TKey, TValue>.OfPoison(poison, PerKey), out _);

    bool IIntake<ParallelRecord<TKey, TValue>>.CutBefore(PartitionScheduler<ParallelRecord<TKey, TValue>> scheduler, TopicPartitionOffset record) => true;

    /// <summary>A worker (or the loop) runs the handler, with the record's span current for the handler only.</summary>
    ValueTask<HandlerResult> IRecordScheduling<ParallelRecord<TKey, TValue>>.HandleAsync(ParallelRecord<TKey, TValue> record)
    {
        Activity? activity = record.Activity = _tracing.Start(record.Record!);
        try
        {
            return _handler.RunAsync(record.HandlerView!, activity); // an awaiting handler carries the span on in its context
        }
        finally
        {
            LeaveSpan(activity);
        }
    }

    /// <summary>The record outlives this consume: it takes its own copy of its bytes (for a possible dead letter) from the capture.</summary>
    void IRecordScheduling<ParallelRecord<TKey, TValue>>.Retain(ParallelRecord<TKey, TValue> record)
    {
        if (record.Poison is { } poison)
        {
            record.HeldBytes = ReadAhead.Charge(poison.ConsumerRecord); // its bytes are in its exception
            return;
        }

        (byte[]? key, byte[]? value) = (_step!.Keys.ToArray(), _step!.Values.ToArray());
        record.OwnBytes = (key, value);
        record.HeldBytes = ReadAhead.Charge(key, value);
    }

    AfterConclusion IRecordScheduling<ParallelRecord<TKey, TValue>>.Conclude(ParallelRecord<TKey, TValue> record)
    {
        if (record.Poison is { } poison)
        {
            return _conclusion!.DeadLetterPoison(poison);
        }

        return InSpan(record.Activity, (Service: this, Record: record), static (state, activity) =>
            state.Service._conclusion!.Conclude(state.Record.Record!, state.Record.Result, activity, state.Record.OwnBytes));
    }

    void IRecordScheduling<ParallelRecord<TKey, TValue>>.Drop(ParallelRecord<TKey, TValue> record) => record.Activity?.Dispose();

    void IRecordScheduling<ParallelRecord<TKey, TValue>>.Pause(TopicPartition partition) => Pause(partition);

    void IRecordScheduling<ParallelRecord<TKey, TValue>>.Resume(TopicPartition partition, TopicPartitionOffset? readAgainFrom) => Resume(partition, readAgainFrom);

    /// <summary>A handler started in a span: the span stays current in the handler's own context only, not on the thread that started it.</summary>
    private static void LeaveSpan(Activity? activity)
    {
        if (activity is not null)
        {
            Activity.Current = activity.Parent;
        }
    }

    /// <summary>
    /// Concludes in the span of the record or batch (a dead letter continues it), which ends with the conclusion.
    /// Untraced, <see cref="Activity.Current"/> (an AsyncLocal, read and written per record) is not touched.
    /// </summary>
    private static AfterConclusion InSpan<TState>(Activity? activity, TState state, System.Func<TState, Activity?, AfterConclusion> conclude)
    {
        if (activity is null)
        {
            return conclude(state, null);
        }

        Activity? previous = Activity.Current;
        Activity.Current = activity;
        try
        {
            return conclude(state, activity);
        }
        finally
        {
            activity.Dispose();
            Activity.Current = previous;
        }
    }

    private void Pause(TopicPartition partition) => _step!.Pause(partition);

    private void Resume(TopicPartition partition, TopicPartitionOffset? readAgainFrom) => _step!.Resume(partition, readAgainFrom);

    /// <summary>Partitions taken away: the scheduler lets go of them (what batches were still collecting: <c>RevokeCollected</c>). False: a conclusion stopped the consumer.</summary>
    private bool RevokeScheduled(IEnumerable<TopicPartition> partitions) =>
        _scheduler?.Revoke(partitions) ?? _batchScheduler?.Revoke(partitions) ?? true;
}
