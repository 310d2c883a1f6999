using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Consuming;
using KafkaProtobuf.Hosting.Handling;

namespace KafkaProtobuf.Hosting.Scheduling;

/// <summary>
/// Partition-parallel scheduling, on the loop thread. The loop hands work over (<see cref="Offer"/>); each work joins
/// its partition's lane and its sequence, and its handler runs on a worker (<see cref="HandlerWorkers{TWork}"/>) once
/// every earlier work of its sequence is done, at most <see cref="SchedulerSettings.MaxConcurrentHandlers"/> at once.
/// Done work comes back as data; whatever order handlers finish in, it goes on to its conclusion in its partition's
/// order, so an offset is never stored past unfinished work. Work kept counts against the read-ahead budget
/// (<see cref="PartitionPausing"/>); work to read again pauses its partition for a while and drops what was read after
/// it; partitions taken away wait for their handlers up to a timeout, and what is still running then is dropped (its new
/// owner reads it again). The scheduler calls its handler, its conclusion and the work itself (to keep or release it),
/// never whoever offered the work.
/// </summary>
/// <typeparam name="TWork">What is scheduled: a record, or a batch.</typeparam>
internal sealed class PartitionScheduler<TWork>
    where TWork : ScheduledWork
{
    private static readonly TimeSpan LongestWait = TimeSpan.FromMilliseconds(100);

    private readonly PartitionLanes _lanes;
    private readonly Func<TWork, AfterConclusion> _conclude;
    private readonly PartitionPausing _pausing;
    private readonly SchedulerSettings _settings;
    private readonly TimeProvider _time;
    private readonly SequenceGate<TWork> _gate;
    private readonly HandlerWorkers<TWork> _workers;
    private readonly List<TopicPartition> _movedBack = [];
    private bool _stopped;

    /// <param name="handle">Runs a work's handler, retries included (any thread); never throws: a failure is its result.</param>
    /// <param name="conclude">Concludes done work (loop thread), once every earlier work of its partition is concluded.</param>
    /// <param name="pausing">Counts what kept work holds against the read-ahead budget; pauses a partition to read a record again.</param>
    /// <param name="settings">Limits and delays.</param>
    /// <param name="time">Time: when a wait for handlers ends.</param>
    /// <param name="threads">Where handlers' workers start: <see cref="TaskScheduler.Default"/>, the thread pool.</param>
    /// <param name="stopping">Cancelled when shutdown begins: no handler starts after it, even before <see cref="Drain"/>.</param>
    public PartitionScheduler(
        Func<TWork, ValueTask<HandlerResult>> handle,
        Func<TWork, AfterConclusion> conclude,
        PartitionPausing pausing,
        SchedulerSettings settings,
        TimeProvider time,
        TaskScheduler threads,
        CancellationToken stopping)
    {
        _conclude = conclude;
        _pausing = pausing;
        _settings = settings;
        _time = time;
        _lanes = new PartitionLanes(settings.SequencesPerPartition);
        _gate = new SequenceGate<TWork>(settings.MaxConcurrentHandlers, stopping);
        _workers = new HandlerWorkers<TWork>(_gate, handle, threads);
    }

    /// <summary>Whether a handler runs or work waits for one (the loop then polls more often).</summary>
    public bool Busy => _gate.Busy;

    /// <summary>Once a conclusion ended the loop (a call answered false): why the consumer stops for good; null at shutdown.</summary>
    public ConsumerFailure? Failure { get; private set; }

    /// <summary>
    /// The partitions the last Offer, ConcludeHandedBack or Revoke moved back to a record to read again (its copy was
    /// not written): what the loop took of them since belongs to the old reading. Told as data, never by a call.
    /// </summary>
    public IReadOnlyList<TopicPartition> MovedBack => _movedBack;

    /// <summary>
    /// Takes work from the loop. When its partition has nothing unconcluded and a slot is free, its handler starts right
    /// here: work that completes at once is concluded at once, as in sequential mode, and is not kept (it never stopped
    /// borrowing the consumer's buffers). False: a conclusion ended the loop (<see cref="Failure"/>).
    /// </summary>
    /// <param name="work">The work.</param>
    /// <param name="kept">Whether the scheduler keeps the work (then it was told to <see cref="ScheduledWork.Keep"/>);
    /// if not, the caller may reuse it.</param>
    public bool Offer(TWork work, out bool kept)
    {
        _movedBack.Clear();
        PartitionLane lane = _lanes.Of(work.Topic, work.Partition);
        WorkSequence sequence = lane.SequenceOf(work.KeyHash);
        work.Sequence = sequence;
        work.Generation = lane.Generation;
        if (work.NeedsHandler && lane.InOrder.Count == 0 && _gate.TryStartOnLoop(sequence))
        {
            ValueTask<HandlerResult> running = _workers.Start(work);
            if (running.IsCompleted)
            {
                _gate.CompletedOnLoop(sequence);
                work.Result = running.Result;
                kept = false;
                return Conclude(lane, work); // every earlier work of the partition is concluded
            }

            Keep(lane, work);
            _workers.ContinueInWorker(work, running);
        }
        else
        {
            Keep(lane, work);
            _workers.Enqueue(work);
        }

        kept = true;
        return true;
    }

    /// <summary>Concludes what workers handed back, each partition in its order. False: a conclusion ended the loop.</summary>
    public bool ConcludeHandedBack()
    {
        _movedBack.Clear();
        return ConcludeAllHandedBack();
    }

    private bool ConcludeAllHandedBack()
    {
        while (!_stopped && _gate.TryTakeHandedBack(out TWork work))
        {
            PartitionLane lane = work.Sequence!.Lane;
            if (!_lanes.IsCurrent(lane) || work.Generation != lane.Generation)
            {
                Drop(work); // its partition was let go or moved back meanwhile: it is read again
                continue;
            }

            work.Done = true;
            ConcludeInOrder(lane);
        }

        return !_stopped;
    }

    /// <summary>
    /// An unavailable schema, or a retry topic's record not due yet: the partition pauses and reads the record again
    /// after <paramref name="delay"/> (<see cref="SchedulerSettings.ReadAgainDelay"/> if null); what its lane holds
    /// came before it, and goes on.
    /// </summary>
    public void ReadAgainLater(TopicPartitionOffset record, PartitionPauses reason, TimeSpan? delay = null) =>
        _pausing.PauseFor(record, delay ?? _settings.ReadAgainDelay, reason);

    /// <summary>
    /// Partitions are taken away: no handler starts on their work, the running ones get up to
    /// <see cref="SchedulerSettings.RevokeTimeout"/>, what finished is concluded and the rest dropped. False: a
    /// conclusion ended the loop (<see cref="Failure"/>).
    /// </summary>
    public bool Revoke(IEnumerable<TopicPartition> partitions)
    {
        _movedBack.Clear();
        List<PartitionLane> leaving = _lanes.Of(partitions);
        if (leaving.Count == 0)
        {
            return !_stopped;
        }

        WaitForHandlers(leaving, _settings.RevokeTimeout, CancellationToken.None);
        foreach (PartitionLane lane in leaving)
        {
            _lanes.Remove(lane);
            foreach (ScheduledWork unconcluded in lane.InOrder)
            {
                _pausing.Release(unconcluded.ReadAheadBytes);
                if (unconcluded.Done)
                {
                    unconcluded.Release(); // what is still in handlers is dropped when it comes back
                }
            }

            lane.InOrder.Clear();
        }

        return !_stopped;
    }

    /// <summary>
    /// Shutdown: no handler starts any more; the running ones finish (or are cancelled by the host's shutdown timeout),
    /// and what finished in order is concluded. Gives up waiting when <paramref name="giveUp"/> is cancelled (handlers
    /// that ignore their token).
    /// </summary>
    public void Drain(CancellationToken giveUp) => WaitForHandlers(_lanes.All(), Timeout.InfiniteTimeSpan, giveUp);

    /// <summary>The work stays in its lane until concluded, and counts against the read-ahead budget until then.</summary>
    private void Keep(PartitionLane lane, TWork work)
    {
        work.Keep(); // sets what it counts
        lane.InOrder.Enqueue(work);
        _pausing.Charge(lane.Partition, work.ReadAheadBytes);
    }

    /// <summary>The lane's oldest work leaves it (concluded, or dropped as the partition is read again): its memory is free.</summary>
    private ScheduledWork TakeOldest(PartitionLane lane)
    {
        ScheduledWork oldest = lane.InOrder.Dequeue();
        _pausing.Release(oldest.ReadAheadBytes);
        return oldest;
    }

    /// <summary>Concludes the lane's work from the oldest on, while it is done.</summary>
    private void ConcludeInOrder(PartitionLane lane)
    {
        while (!_stopped && lane.InOrder.Count > 0 && lane.InOrder.Peek() is { Done: true } head)
        {
            if (head.Result.Outcome == HandlerOutcome.Cancelled)
            {
                return; // shutting down: neither it nor anything after it is stored; read again
            }

            TakeOldest(lane);
            Conclude(lane, (TWork)head);
            if (head.NeedsLoop)
            {
                _workers.Unblock(head.Sequence!);
            }
        }
    }

    /// <summary>Concludes one work whose partition has nothing unconcluded before it. False: the loop ends.</summary>
    private bool Conclude(PartitionLane lane, TWork work)
    {
        AfterConclusion after = _conclude(work);
        if (after.IsReadAgain)
        {
            MoveBack(lane, work.ReadAgainFrom);
        }

        _stopped |= after.Ends;
        Failure ??= after.Failure;
        return !after.Ends;
    }

    /// <summary>
    /// The consumer was moved back to a record (its copy was not written): the lane's later work belongs to the old
    /// reading (what waits is forgotten, what is done dropped, what is in handlers dropped when it comes back), and the
    /// partition pauses before it reads the record again.
    /// </summary>
    private void MoveBack(PartitionLane lane, TopicPartitionOffset record)
    {
        lane.Generation++;
        _gate.ForgetWaiting(lane);
        while (lane.InOrder.Count > 0)
        {
            ScheduledWork later = TakeOldest(lane);
            if (later.Done)
            {
                Drop((TWork)later);
            }
        }

        _pausing.PauseFor(record, _settings.ReadAgainDelay, PartitionPauses.CopyNotWritten);
        _movedBack.Add(lane.Partition);
    }

    /// <summary>Work that will not be concluded; its sequence no longer waits for it.</summary>
    private void Drop(TWork work)
    {
        work.Release();
        if (work.NeedsLoop)
        {
            _workers.Unblock(work.Sequence!);
        }
    }

    /// <summary>
    /// Closes lanes to new handlers and waits until none of theirs runs (or the time is up), concluding what comes back
    /// meanwhile.
    /// </summary>
    private void WaitForHandlers(List<PartitionLane> lanes, TimeSpan timeout, CancellationToken giveUp)
    {
        _gate.Close(lanes);
        long started = _time.GetTimestamp();
        while (true)
        {
            _workers.HandedBackSignal.Reset();
            bool running = _gate.AnyRunning(lanes); // before concluding: what stopped running was handed back by then
            if (!ConcludeAllHandedBack() || !running || giveUp.IsCancellationRequested)
            {
                return;
            }

            TimeSpan wait = LongestWait;
            if (timeout != Timeout.InfiniteTimeSpan)
            {
                TimeSpan left = timeout - _time.GetElapsedTime(started);
                if (left <= TimeSpan.Zero)
                {
                    return;
                }

                wait = left < wait ? left : wait;
            }

            _workers.WaitForHandBack(wait, _time);
        }
    }
}
