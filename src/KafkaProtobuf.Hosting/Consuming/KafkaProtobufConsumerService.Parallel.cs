using System.Diagnostics;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;

namespace KafkaProtobuf.Hosting;

/// <summary>
/// Partition-parallel mode (<see cref="KafkaProtobufConsumerOptions.MaxConcurrentRecords"/> above 1): the loop thread
/// consumes and offers each record to the <see cref="PartitionScheduler{TRecord}"/>, which runs handlers on workers and
/// hands each record back here, in its partition's order, to be concluded. This file is the consumer's side of that
/// surface (<see cref="IRecordScheduling{TRecord}"/>): run a handler, conclude or drop a record, pause or resume a partition.
/// </summary>
internal sealed partial class KafkaProtobufConsumerService<TKey, TValue> : IRecordScheduling<ParallelRecord<TKey, TValue>>
{
    private static readonly System.TimeSpan BusyWait = System.TimeSpan.FromMilliseconds(2);
    private static readonly System.TimeSpan IdleWait = System.TimeSpan.FromMilliseconds(50);

    private PartitionScheduler<ParallelRecord<TKey, TValue>>? _scheduler;
    private ParallelRecord<TKey, TValue>? _spare; // a record the scheduler did not keep (its handler completed at once): used again

    /// <summary>The most records any partition's lane has held at once.</summary>
    internal int DeepestLane => _scheduler?.DeepestLane ?? 0;

    private bool PerKey => _options.HandlingOrder == HandlingOrder.Key;

    private void RunPartitionParallel()
    {
        _scheduler = new PartitionScheduler<ParallelRecord<TKey, TValue>>(this, SchedulerSettings.From(_options));
        while (!_stopTaking.IsCancellationRequested)
        {
            if (!_scheduler.ConcludeHandedBack())
            {
                return;
            }

            _scheduler.ResumeDue();
            Consumed consumed = Consume(_scheduler.Busy ? BusyWait : IdleWait, out ConsumeResult<TKey, TValue>? record, out ConsumeException? unread);
            if (consumed is Consumed.Stopping or Consumed.Failed)
            {
                return;
            }

            if (consumed == Consumed.Poison)
            {
                // Never run on the loop at once: it waits for the records before it in its sequence, then is dead-lettered in order.
                if (!_scheduler.Offer(ParallelRecord<TKey, TValue>.OfPoison(unread!, PerKey), out _))
                {
                    return;
                }
            }
            else if (consumed == Consumed.SchemaUnavailable)
            {
                // This partition reads the record again after a delay; the others go on.
                TopicPartitionOffset position = unread!.ConsumerRecord.TopicPartitionOffset;
                _scheduler.ReadAgainLater(position);
                _probe?.MovedBack(Name, position, schemaUnavailable: true);
            }
            else if (consumed == Consumed.Record)
            {
                ParallelRecord<TKey, TValue> taken = _spare ?? new ParallelRecord<TKey, TValue>();
                taken.Hold(record!, PerKey ? _keys.Hash() : 0);
                if (!_scheduler.Offer(taken, out bool kept))
                {
                    return;
                }

                _spare = kept ? null : taken;
            }
        }

        // Shutting down: start nothing more, let the records in hand finish (their handlers are cancelled when the
        // host's shutdown timeout runs out), and store what finished; Close then commits it. A killed consumer stores nothing.
        if (!_abandoned)
        {
            using var giveUp = new CancellationTokenSource();
            using CancellationTokenRegistration _ = _abortHandler.Token.Register(() => giveUp.CancelAfter(CloseGrace)); // handlers that ignore their token
            _scheduler.Drain(giveUp.Token);
        }
    }

    /// <summary>A worker (or the loop) runs the handler, with the record's span current for the handler only.</summary>
    ValueTask<HandlerResult> IRecordScheduling<ParallelRecord<TKey, TValue>>.HandleAsync(ParallelRecord<TKey, TValue> record)
    {
        Activity? activity = record.Activity = _tracing.Start(record.Record!);
        if (activity is null)
        {
            return _handler.RunAsync(record.Record!, null);
        }

        try
        {
            return _handler.RunAsync(record.Record!, activity); // an awaiting handler carries the span on in its context
        }
        finally
        {
            Activity.Current = activity.Parent;
        }
    }

    /// <summary>The record outlives this consume: it takes its own copy of its bytes (for a possible dead letter) from the capture.</summary>
    void IRecordScheduling<ParallelRecord<TKey, TValue>>.Retain(ParallelRecord<TKey, TValue> record)
    {
        if (record.NeedsHandler)
        {
            record.OwnBytes = (_keys.ToArray(), _values.ToArray());
        }
    }

    AfterConclusion IRecordScheduling<ParallelRecord<TKey, TValue>>.Conclude(ParallelRecord<TKey, TValue> record)
    {
        if (record.Poison is { } poison)
        {
            using Activity? poisonActivity = _tracing.StartPoison(poison);
            return DeadLetterPoison(poison, poisonActivity);
        }

        if (record.Activity is not { } activity)
        {
            return Conclude(record.Record!, record.Result, null, record.OwnBytes); // untraced: Activity.Current is not touched (an AsyncLocal, read and written per record)
        }

        Activity? previous = Activity.Current;
        Activity.Current = activity; // a dead letter continues the record's span
        try
        {
            return Conclude(record.Record!, record.Result, activity, record.OwnBytes);
        }
        finally
        {
            activity.Dispose();
            Activity.Current = previous;
        }
    }

    void IRecordScheduling<ParallelRecord<TKey, TValue>>.Drop(ParallelRecord<TKey, TValue> record) => record.Activity?.Dispose();

    void IRecordScheduling<ParallelRecord<TKey, TValue>>.Pause(TopicPartition partition) => _consumer!.Pause([partition]);

    void IRecordScheduling<ParallelRecord<TKey, TValue>>.Resume(TopicPartition partition, TopicPartitionOffset? readAgainFrom)
    {
        _consumer!.Resume([partition]);
        if (readAgainFrom is not null)
        {
            _consumer.Seek(readAgainFrom);
        }
    }
}
