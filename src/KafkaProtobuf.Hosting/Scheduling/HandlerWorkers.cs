using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using KafkaProtobuf.Hosting.Handling;

namespace KafkaProtobuf.Hosting.Scheduling;

/// <summary>
/// The one hand-off between the loop thread and the handlers' threads. The loop puts records in their sequences; a
/// worker (at most <c>slots</c> at once) takes a ready sequence's next record, runs its handler, and hands the record
/// back through a queue the loop empties. Everything both sides touch (the sequences, the ready queue, the slot count,
/// a lane's <see cref="PartitionLane.LettingGo"/>) is guarded by one gate, held only for a few field writes; the rest of the
/// scheduling state is the loop thread's alone (<see cref="PartitionScheduler{TRecord}"/>).
/// </summary>
/// <typeparam name="TRecord">The consumer's record type.</typeparam>
internal sealed class HandlerWorkers<TRecord>
    where TRecord : ScheduledWork
{
    private readonly object _gate = new();
    private readonly Queue<RecordSequence> _ready = new();
    private readonly ConcurrentQueue<TRecord> _handedBack = new();
    private readonly IRecordScheduling<TRecord> _host;
    private readonly Action<Func<Task>> _startWorker;
    private readonly int _slots;
    private readonly CancellationToken _stopping;
    private int _busy; // slots taken: workers running, and a handler the loop started itself

    /// <param name="host">Runs handlers.</param>
    /// <param name="slots">How many handlers may run at once.</param>
    /// <param name="startWorker">Starts a worker on another thread (the thread pool); tests run it in place.</param>
    /// <param name="stopping">Shutdown: from then on a worker whose handler is done takes no other record (the loop has not closed the lanes yet).</param>
    public HandlerWorkers(IRecordScheduling<TRecord> host, int slots, Action<Func<Task>>? startWorker, CancellationToken stopping)
    {
        _host = host;
        _slots = slots;
        _stopping = stopping;
        _startWorker = startWorker ?? (work => Task.Run(work));
    }

    /// <summary>Set whenever a record is handed back; the loop resets it before it waits for one.</summary>
    public ManualResetEventSlim HandedBackSignal { get; } = new();

    /// <summary>Whether a slot is taken: a handler runs, or a worker is about to take a ready record.</summary>
    public bool Busy => Volatile.Read(ref _busy) > 0;

    /// <summary>
    /// Starts a record's handler on the calling thread (up to its first await): the loop's, or a worker's. The host
    /// turns what a handler throws into its result, so an exception here is a defect; it becomes a Stop result.
    /// </summary>
    public ValueTask<HandlerResult> Start(TRecord record)
    {
        try
        {
            return _host.HandleAsync(record);
        }
        catch (Exception e)
        {
            return new ValueTask<HandlerResult>(Defect(e));
        }
    }

    /// <summary>
    /// Loop thread: takes a slot for the record's handler to start right on the loop thread, if a slot is free, its
    /// sequence idle and its lane open (the caller knows its partition has nothing unconcluded).
    /// </summary>
    public bool TryStartOnLoop(RecordSequence sequence)
    {
        lock (_gate)
        {
            if (sequence.State != SequenceState.Idle || sequence.Lane.LettingGo || _busy >= _slots)
            {
                return false;
            }

            _busy++;
            sequence.State = SequenceState.Running;
            return true;
        }
    }

    /// <summary>Loop thread: the handler started by <see cref="TryStartOnLoop"/> completed at once; its slot and sequence are free.</summary>
    public void CompletedOnLoop(RecordSequence sequence)
    {
        lock (_gate)
        {
            _busy--;
            sequence.State = SequenceState.Idle;
        }
    }

    /// <summary>Loop thread: the handler started by <see cref="TryStartOnLoop"/> awaits; a worker takes the record over from here.</summary>
    public void ContinueInWorker(TRecord record, ValueTask<HandlerResult> running) => _ = WorkAsync(record, running);

    /// <summary>Loop thread: a record joins its sequence; a worker starts if the sequence was idle and a slot is free.</summary>
    public void Enqueue(TRecord record)
    {
        RecordSequence sequence = record.Sequence!;
        bool start;
        lock (_gate)
        {
            sequence.Waiting.Enqueue(record);
            start = sequence.State == SequenceState.Idle && MakeReady(sequence);
        }

        StartWorkerIf(start);
    }

    /// <summary>Loop thread: the record that held its sequence was concluded or dropped; the sequence goes on.</summary>
    public void Unblock(RecordSequence sequence)
    {
        bool start;
        lock (_gate)
        {
            if (sequence.State != SequenceState.Held)
            {
                return;
            }

            sequence.State = SequenceState.Idle;
            start = MakeReady(sequence);
        }

        StartWorkerIf(start);
    }

    /// <summary>Loop thread: the records waiting in the lane's sequences are forgotten (the partition is read again from an earlier record).</summary>
    public void ForgetWaiting(PartitionLane lane)
    {
        lock (_gate)
        {
            foreach (RecordSequence sequence in lane.Sequences)
            {
                sequence.Waiting.Clear(); // a Ready sequence left empty is skipped by the next worker
            }
        }
    }

    /// <summary>Loop thread: no handler starts on the lanes' records any more.</summary>
    public void Close(IEnumerable<PartitionLane> lanes)
    {
        lock (_gate)
        {
            foreach (PartitionLane lane in lanes)
            {
                lane.LettingGo = true;
            }
        }
    }

    /// <summary>Whether a handler is running on a record of these lanes.</summary>
    public bool AnyRunning(IEnumerable<PartitionLane> lanes)
    {
        lock (_gate)
        {
            foreach (PartitionLane lane in lanes)
            {
                foreach (RecordSequence sequence in lane.Sequences)
                {
                    if (sequence.State == SequenceState.Running)
                    {
                        return true;
                    }
                }
            }

            return false;
        }
    }

    /// <summary>Loop thread: the next record a worker handed back.</summary>
    public bool TryTakeHandedBack(out TRecord record) => _handedBack.TryDequeue(out record!);

    private static HandlerResult Defect(Exception e) => new(HandlerOutcome.Stop, e);

    /// <summary>Outside the gate: starts a worker for the slot <see cref="MakeReady"/> took.</summary>
    private void StartWorkerIf(bool slotTaken)
    {
        if (slotTaken)
        {
            _startWorker(() => WorkAsync(null, default));
        }
    }

    /// <summary>Under the gate: an idle sequence with waiting records joins the ready queue; true when a new worker should start for it.</summary>
    private bool MakeReady(RecordSequence sequence)
    {
        if (sequence.Waiting.Count == 0 || sequence.Lane.LettingGo)
        {
            return false;
        }

        sequence.State = SequenceState.Ready;
        _ready.Enqueue(sequence);
        if (_busy >= _slots)
        {
            return false; // a running worker takes it when its record is done
        }

        _busy++;
        return true;
    }

    /// <summary>
    /// A worker: runs the handler of the record in hand (one the loop started, when given), hands it back, and takes the
    /// next ready sequence's next record, until none is ready. It holds one slot throughout.
    /// </summary>
    private async Task WorkAsync(TRecord? record, ValueTask<HandlerResult> started)
    {
        bool startedOnLoop = record is not null;
        while (true)
        {
            if (record is null && !TryTakeNext(out record))
            {
                return;
            }

            if (record.NeedsHandler)
            {
                HandlerResult result;
                try
                {
                    result = startedOnLoop ? await started.ConfigureAwait(false) : await Start(record).ConfigureAwait(false);
                }
                catch (Exception e)
                {
                    result = Defect(e); // a started handler that faults, as Start says
                }

                record.Result = result;
            }

            startedOnLoop = false;
            HandBack(record); // a record that needs no handler keeps the result it came with (poison: none)
            record = null;
        }
    }

    /// <summary>Takes the next ready sequence's next record, marking the sequence running; false (and the slot freed) when none is ready or shutdown has begun.</summary>
    private bool TryTakeNext(out TRecord record)
    {
        lock (_gate)
        {
            while (_ready.Count > 0 && !_stopping.IsCancellationRequested)
            {
                RecordSequence sequence = _ready.Dequeue();
                if (sequence.State != SequenceState.Ready)
                {
                    continue;
                }

                if (sequence.Waiting.Count == 0 || sequence.Lane.LettingGo)
                {
                    sequence.State = SequenceState.Idle;
                    continue;
                }

                sequence.State = SequenceState.Running;
                record = (TRecord)sequence.Waiting.Dequeue();
                return true;
            }

            _busy--;
            record = null!;
            return false;
        }
    }

    /// <summary>A record is done with: its sequence waits for the loop if the record needs it, else goes on (behind the others ready).</summary>
    private void HandBack(TRecord record)
    {
        RecordSequence sequence = record.Sequence!;
        lock (_gate)
        {
            if (record.NeedsLoop)
            {
                sequence.State = SequenceState.Held;
            }
            else if (sequence.Waiting.Count > 0 && !sequence.Lane.LettingGo)
            {
                sequence.State = SequenceState.Ready;
                _ready.Enqueue(sequence);
            }
            else
            {
                sequence.State = SequenceState.Idle;
            }

            // Queued under the gate: once AnyRunning sees the sequence stopped, the record is there to conclude.
            _handedBack.Enqueue(record);
        }

        HandedBackSignal.Set();
    }
}
