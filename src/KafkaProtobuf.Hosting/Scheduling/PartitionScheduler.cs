using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Handling;

namespace KafkaProtobuf.Hosting.Scheduling;

/// <summary>
/// Partition-parallel scheduling, on the loop thread. Each record joins its partition's lane and its sequence; its
/// handler runs on a worker (<see cref="HandlerWorkers{TRecord}"/>) once every earlier record of its sequence is done,
/// at most <see cref="SchedulerSettings.MaxConcurrentHandlers"/> at once. Whatever order handlers finish in, records are
/// concluded in their partition's order, so an offset is never stored past an unfinished record. Records kept hold
/// memory against one budget across partitions (<see cref="SchedulerSettings.MaxReadAheadBytes"/>): the partition that
/// takes a record past it pauses until half of it is free (<see cref="LanePausing"/>); a record to read again pauses it for a while and drops what was read after it; partitions taken away
/// wait for their handlers up to a timeout, and what is still running then is dropped (its new owner reads it again).
/// </summary>
/// <typeparam name="TRecord">The consumer's record type.</typeparam>
internal sealed class PartitionScheduler<TRecord>
    where TRecord : ScheduledWork
{
    private static readonly TimeSpan LongestWait = TimeSpan.FromMilliseconds(100);

    private readonly Dictionary<(string Topic, int Partition), PartitionLane> _lanes = [];
    private readonly IRecordScheduling<TRecord> _host;
    private readonly SchedulerSettings _settings;
    private readonly SchedulerClock _clock;
    private readonly HandlerWorkers<TRecord> _workers;
    private readonly LanePausing _pausing;
    private PartitionLane? _lastLane; // records come in runs of one partition: most lookups end here
    private bool _stopped;

    /// <param name="host">The consumer's side: handlers, conclusions, fetching.</param>
    /// <param name="settings">Limits and delays.</param>
    /// <param name="clock">Time; <see cref="SchedulerClock.System"/> unless testing.</param>
    /// <param name="startWorker">Starts a worker on another thread; the thread pool unless testing.</param>
    /// <param name="stopping">Cancelled when shutdown begins: no handler starts after it, even before <see cref="Drain"/>.</param>
    public PartitionScheduler(IRecordScheduling<TRecord> host, SchedulerSettings settings, SchedulerClock? clock = null, Action<Func<Task>>? startWorker = null, CancellationToken stopping = default)
    {
        _host = host;
        _settings = settings;
        _clock = clock ?? SchedulerClock.System;
        _workers = new HandlerWorkers<TRecord>(host, settings.MaxConcurrentHandlers, startWorker, stopping);
        _pausing = new LanePausing(host, settings, _clock);
    }

    /// <summary>The most the lanes' records have counted at once against the read-ahead budget (<see cref="SchedulerSettings.MaxReadAheadBytes"/>).</summary>
    public long MostHeldBytes => _pausing.MostHeldBytes;

    /// <summary>Whether a handler runs or a record waits for one (the loop then polls more often).</summary>
    public bool Busy => _workers.Busy;

    /// <summary>
    /// Takes a consumed record. When its partition has nothing unconcluded and a slot is free, its handler starts right
    /// here: one that completes at once is concluded at once, as in sequential mode, and the record is not kept. False:
    /// a conclusion stopped the consumer.
    /// </summary>
    /// <param name="record">The record.</param>
    /// <param name="kept">Whether the scheduler keeps the record (then <see cref="IRecordScheduling{TRecord}.Retain"/> was called); if not, the caller may reuse it.</param>
    public bool Offer(TRecord record, out bool kept)
    {
        PartitionLane lane = LaneOf(record.Topic, record.Partition);
        RecordSequence sequence = lane.SequenceOf(record.KeyHash);
        record.Sequence = sequence;
        record.Generation = lane.Generation;
        if (record.NeedsHandler && lane.InOrder.Count == 0 && _workers.TryStartOnLoop(sequence))
        {
            ValueTask<HandlerResult> running = _workers.Start(record);
            if (running.IsCompleted)
            {
                _workers.CompletedOnLoop(sequence);
                record.Result = running.Result;
                kept = false;
                return Conclude(lane, record); // every earlier record of the partition is concluded
            }

            Keep(lane, record);
            _workers.ContinueInWorker(record, running);
        }
        else
        {
            Keep(lane, record);
            _workers.Enqueue(record);
        }

        kept = true;
        return true;
    }

    /// <summary>Concludes what workers handed back, each partition in its order as far as its records are done. False: a conclusion stopped the consumer.</summary>
    public bool ConcludeHandedBack()
    {
        while (!_stopped && _workers.TryTakeHandedBack(out TRecord record))
        {
            PartitionLane lane = record.Sequence!.Lane;
            if (!IsCurrent(lane) || record.Generation != lane.Generation)
            {
                Drop(record); // its partition was let go or moved back meanwhile: it is read again
                continue;
            }

            record.Handled = true;
            ConcludeInOrder(lane);
        }

        return !_stopped;
    }

    /// <summary>
    /// An unavailable schema, or a retry topic's record not due yet: the partition pauses and reads the record again
    /// after <paramref name="delay"/> (<see cref="SchedulerSettings.ReadAgainDelay"/> if null); what its lane holds came before it, and goes on.
    /// </summary>
    public void ReadAgainLater(TopicPartitionOffset record, TimeSpan? delay = null) => _pausing.PauseFor(LaneOf(record.Topic, record.Partition), record, delay);

    /// <summary>Resumes paused partitions whose delay, if any, is over, and, if the read-ahead budget paused them, once half of it is free.</summary>
    public void ResumeDue() => _pausing.ResumeDue(_lanes.Values);

    /// <summary>
    /// Partitions are taken away: no handler starts on their records, the running ones get up to
    /// <see cref="SchedulerSettings.RevokeTimeout"/>, what finished is concluded and the rest dropped. False: a
    /// conclusion stopped the consumer.
    /// </summary>
    public bool Revoke(IEnumerable<TopicPartition> partitions)
    {
        var leaving = new List<PartitionLane>();
        foreach (TopicPartition partition in partitions)
        {
            if (_lanes.TryGetValue((partition.Topic, partition.Partition.Value), out PartitionLane? lane))
            {
                leaving.Add(lane);
            }
        }

        if (leaving.Count == 0)
        {
            return !_stopped;
        }

        WaitForHandlers(leaving, _settings.RevokeTimeout, CancellationToken.None);
        foreach (PartitionLane lane in leaving)
        {
            _lanes.Remove((lane.Partition.Topic, lane.Partition.Partition.Value));
            foreach (ScheduledWork unconcluded in lane.InOrder)
            {
                if (unconcluded.Handled)
                {
                    _host.Drop((TRecord)unconcluded); // those still in handlers are dropped when they come back
                }
            }

            lane.InOrder.Clear();
            _pausing.LetGo(lane);
        }

        _lastLane = null;
        return !_stopped;
    }

    /// <summary>
    /// Shutdown: no handler starts any more; the running ones finish (or are cancelled by the host's shutdown timeout),
    /// and what finished in order is concluded. Gives up waiting when <paramref name="giveUp"/> is cancelled (handlers
    /// that ignore their token).
    /// </summary>
    public void Drain(CancellationToken giveUp) => WaitForHandlers(_lanes.Values.ToList(), Timeout.InfiniteTimeSpan, giveUp);

    /// <summary>The record stays in its lane until concluded; its partition pauses when the read-ahead budget has run out.</summary>
    private void Keep(PartitionLane lane, TRecord record)
    {
        _host.Retain(record); // sets what it holds
        lane.InOrder.Enqueue(record);
        _pausing.Held(lane, record);
    }

    /// <summary>The lane's oldest record leaves it (concluded, or dropped as the partition is read again): its memory is free.</summary>
    private ScheduledWork TakeOldest(PartitionLane lane)
    {
        ScheduledWork oldest = lane.InOrder.Dequeue();
        _pausing.Freed(lane, oldest);
        return oldest;
    }

    /// <summary>Concludes the lane's records from the oldest on, while they are done.</summary>
    private void ConcludeInOrder(PartitionLane lane)
    {
        while (!_stopped && lane.InOrder.Count > 0 && lane.InOrder.Peek() is { Handled: true } head)
        {
            if (head.Result.Outcome == HandlerOutcome.Cancelled)
            {
                return; // shutting down: neither it nor anything after it is stored; read again
            }

            TakeOldest(lane);
            Conclude(lane, (TRecord)head);
            if (head.NeedsLoop)
            {
                _workers.Unblock(head.Sequence!);
            }
        }
    }

    /// <summary>Concludes one record whose partition has nothing unconcluded before it. False: the consumer stops.</summary>
    private bool Conclude(PartitionLane lane, TRecord record)
    {
        switch (_host.Conclude(record))
        {
            case AfterConclusion.Stop:
                _stopped = true;
                return false;
            case AfterConclusion.ReadAgain:
                MoveBack(lane, record.ReadAgainFrom);
                return true;
            default:
                return true;
        }
    }

    /// <summary>
    /// The consumer was moved back to a record (its dead letter failed): the lane's later records belong to the old
    /// reading (those waiting are forgotten, those finished dropped, those in handlers dropped when they come back), and
    /// the partition pauses before it reads the record again.
    /// </summary>
    private void MoveBack(PartitionLane lane, TopicPartitionOffset record)
    {
        lane.Generation++;
        _workers.ForgetWaiting(lane);
        while (lane.InOrder.Count > 0)
        {
            ScheduledWork later = TakeOldest(lane);
            if (later.Handled)
            {
                Drop((TRecord)later);
            }
        }

        _pausing.PauseFor(lane, record);
    }

    /// <summary>A record that will not be concluded; its sequence no longer waits for it.</summary>
    private void Drop(TRecord record)
    {
        _host.Drop(record);
        if (record.NeedsLoop)
        {
            _workers.Unblock(record.Sequence!);
        }
    }

    /// <summary>Closes lanes to new handlers and waits until none of theirs runs (or the time is up), concluding what comes back meanwhile.</summary>
    private void WaitForHandlers(List<PartitionLane> lanes, TimeSpan timeout, CancellationToken giveUp)
    {
        _workers.Close(lanes);
        TimeSpan? deadline = timeout == Timeout.InfiniteTimeSpan ? null : _clock.Now + timeout;
        while (true)
        {
            _workers.HandedBackSignal.Reset();
            bool running = _workers.AnyRunning(lanes); // before concluding: what stopped running was handed back by then
            if (!ConcludeHandedBack() || !running || giveUp.IsCancellationRequested)
            {
                return;
            }

            TimeSpan wait = LongestWait;
            if (deadline is { } end)
            {
                TimeSpan left = end - _clock.Now;
                if (left <= TimeSpan.Zero)
                {
                    return;
                }

                wait = left < wait ? left : wait;
            }

            _clock.WaitForHandBack(_workers.HandedBackSignal, wait);
        }
    }

    private bool IsCurrent(PartitionLane lane) => _lanes.TryGetValue((lane.Partition.Topic, lane.Partition.Partition.Value), out PartitionLane? current) && current == lane;

    /// <summary>The partition's lane, made on its first record (by topic and number: a record's TopicPartition is a new object each time it is read).</summary>
    private PartitionLane LaneOf(string topic, Partition partition)
    {
        if (_lastLane is { } last && last.Partition.Partition == partition && string.Equals(last.Partition.Topic, topic, StringComparison.Ordinal))
        {
            return last;
        }

        if (!_lanes.TryGetValue((topic, partition.Value), out PartitionLane? lane))
        {
            lane = new PartitionLane(new TopicPartition(topic, partition), _settings.SequencesPerPartition);
            _lanes.Add((topic, partition.Value), lane);
        }

        _lastLane = lane;
        return lane;
    }
}
