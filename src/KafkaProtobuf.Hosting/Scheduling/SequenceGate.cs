using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Threading;

namespace KafkaProtobuf.Hosting.Scheduling;

/// <summary>
/// Everything the loop thread and the workers both touch, behind one lock held for a few field writes: each sequence's
/// state and waiting work, the queue of sequences ready for a slot, the slots taken, a lane's
/// <see cref="PartitionLane.LettingGo"/>, and the queue of work handed back to the loop. The rest of the scheduling
/// state is the loop thread's alone.
/// </summary>
/// <typeparam name="TWork">What is scheduled: a record, or a batch.</typeparam>
/// <param name="slots">How many handlers may run at once.</param>
/// <param name="stopping">Shutdown: from then on a worker whose handler is done takes no other work (the loop has not
/// closed the lanes yet).</param>
internal sealed class SequenceGate<TWork>(int slots, CancellationToken stopping)
    where TWork : ScheduledWork
{
    private readonly object _gate = new();
    private readonly Queue<WorkSequence> _ready = new();
    private readonly ConcurrentQueue<TWork> _handedBack = new();
    private int _busy; // slots taken: workers running, and a handler the loop started itself

    /// <summary>Whether a slot is taken: a handler runs, or a worker is about to take ready work.</summary>
    public bool Busy => Volatile.Read(ref _busy) > 0;

    /// <summary>
    /// Loop thread: takes a slot for the work's handler to start right on the loop thread, if a slot is free, its
    /// sequence idle and its lane open (the caller knows its partition has nothing unconcluded).
    /// </summary>
    public bool TryStartOnLoop(WorkSequence sequence)
    {
        lock (_gate)
        {
            if (sequence.State != SequenceState.Idle || sequence.Lane.LettingGo || _busy >= slots)
            {
                return false;
            }

            _busy++;
            sequence.State = SequenceState.Running;
            return true;
        }
    }

    /// <summary>
    /// Loop thread: the handler started by <see cref="TryStartOnLoop"/> completed at once; its slot and sequence are
    /// free.
    /// </summary>
    public void CompletedOnLoop(WorkSequence sequence)
    {
        lock (_gate)
        {
            _busy--;
            sequence.State = SequenceState.Idle;
        }
    }

    /// <summary>Loop thread: work joins its sequence. True: a slot was taken for a new worker, which the caller starts.</summary>
    public bool Enqueue(TWork work)
    {
        WorkSequence sequence = work.Sequence!;
        lock (_gate)
        {
            sequence.Waiting.Enqueue(work);
            return sequence.State == SequenceState.Idle && MakeReady(sequence);
        }
    }

    /// <summary>Loop thread: the work that held its sequence was concluded or dropped. True: a slot was taken for a new worker.</summary>
    public bool Unblock(WorkSequence sequence)
    {
        lock (_gate)
        {
            if (sequence.State != SequenceState.Held)
            {
                return false;
            }

            sequence.State = SequenceState.Idle;
            return MakeReady(sequence);
        }
    }

    /// <summary>
    /// Loop thread: the work waiting in the lane's sequences is forgotten (the partition is read again from an earlier
    /// record).
    /// </summary>
    public void ForgetWaiting(PartitionLane lane)
    {
        lock (_gate)
        {
            foreach (WorkSequence sequence in lane.Sequences)
            {
                sequence.Waiting.Clear(); // a Ready sequence left empty is skipped by the next worker
            }
        }
    }

    /// <summary>Loop thread: no handler starts on the lanes' work any more.</summary>
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

    /// <summary>Whether a handler is running on work of these lanes.</summary>
    public bool AnyRunning(IEnumerable<PartitionLane> lanes)
    {
        lock (_gate)
        {
            foreach (PartitionLane lane in lanes)
            {
                foreach (WorkSequence sequence in lane.Sequences)
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

    /// <summary>
    /// A worker: the next ready sequence's next work, the sequence marked running; false (and the slot freed) when none
    /// is ready or shutdown has begun.
    /// </summary>
    public bool TryTakeNext(out TWork work)
    {
        lock (_gate)
        {
            while (_ready.Count > 0 && !stopping.IsCancellationRequested)
            {
                WorkSequence sequence = _ready.Dequeue();
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
                work = (TWork)sequence.Waiting.Dequeue();
                return true;
            }

            _busy--;
            work = null!;
            return false;
        }
    }

    /// <summary>
    /// A worker: work is done with. Its sequence waits for the loop if the work needs it, else goes on (behind the
    /// others ready).
    /// </summary>
    public void HandBack(TWork work)
    {
        WorkSequence sequence = work.Sequence!;
        lock (_gate)
        {
            if (work.NeedsLoop)
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

            // Queued under the gate: once AnyRunning sees the sequence stopped, the work is there to conclude.
            _handedBack.Enqueue(work);
        }
    }

    /// <summary>Loop thread: the next work a worker handed back.</summary>
    public bool TryTakeHandedBack(out TWork work) => _handedBack.TryDequeue(out work!);

    /// <summary>
    /// Under the gate: an idle sequence with waiting work joins the ready queue; true when a new worker should start
    /// for it.
    /// </summary>
    private bool MakeReady(WorkSequence sequence)
    {
        if (sequence.Waiting.Count == 0 || sequence.Lane.LettingGo)
        {
            return false;
        }

        sequence.State = SequenceState.Ready;
        _ready.Enqueue(sequence);
        if (_busy >= slots)
        {
            return false; // a running worker takes it when its work is done
        }

        _busy++;
        return true;
    }
}
