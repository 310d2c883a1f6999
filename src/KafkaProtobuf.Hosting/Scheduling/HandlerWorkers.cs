using System;
using System.Threading;
using System.Threading.Tasks;
using KafkaProtobuf.Hosting.Handling;

namespace KafkaProtobuf.Hosting.Scheduling;

/// <summary>
/// The one hand-off between the loop thread and the handlers' threads. The loop puts work in its sequence; a worker (at
/// most <c>slots</c> at once) takes a ready sequence's next work, runs its handler, and hands the work back through a
/// queue the loop empties: the one way back, as data. What both sides touch is the <see cref="SequenceGate{TWork}"/>'s.
/// </summary>
/// <typeparam name="TWork">What is scheduled: a record, or a batch.</typeparam>
internal sealed class HandlerWorkers<TWork>
    where TWork : ScheduledWork
{
    private readonly SequenceGate<TWork> _gate;
    private readonly Func<TWork, ValueTask<HandlerResult>> _handle;
    private readonly TaskScheduler _threads;

    /// <param name="gate">What the loop and the workers share.</param>
    /// <param name="handle">Runs a work's handler, retries included; never throws (a failure is its result).</param>
    /// <param name="threads">Where a worker starts (<see cref="TaskScheduler.Default"/>: the thread pool), as time is
    /// a <see cref="TimeProvider"/>.</param>
    public HandlerWorkers(SequenceGate<TWork> gate, Func<TWork, ValueTask<HandlerResult>> handle, TaskScheduler threads)
    {
        _gate = gate;
        _handle = handle;
        _threads = threads;
    }

    /// <summary>Set whenever work is handed back; the loop resets it before it waits for one.</summary>
    public ManualResetEventSlim HandedBackSignal { get; } = new();

    /// <summary>
    /// Starts a work's handler on the calling thread (up to its first await): the loop's, or a worker's. The handling
    /// turns what a handler throws into its result, so an exception here is a defect; it becomes a Stop result.
    /// </summary>
    public ValueTask<HandlerResult> Start(TWork work)
    {
        try
        {
            return _handle(work);
        }
        catch (Exception e)
        {
            return new ValueTask<HandlerResult>(Defect(e));
        }
    }

    /// <summary>
    /// Loop thread: the handler started on the loop (<see cref="SequenceGate{TWork}.TryStartOnLoop"/>) awaits; a worker
    /// takes the work over from here.
    /// </summary>
    public void ContinueInWorker(TWork work, ValueTask<HandlerResult> running) => _ = WorkAsync(work, running);

    /// <summary>Loop thread: work joins its sequence; a worker starts if the sequence was idle and a slot is free.</summary>
    public void Enqueue(TWork work) => StartWorkerIf(_gate.Enqueue(work));

    /// <summary>Loop thread: the work that held its sequence was concluded or dropped; the sequence goes on.</summary>
    public void Unblock(WorkSequence sequence) => StartWorkerIf(_gate.Unblock(sequence));

    /// <summary>Waits until a worker hands work back or <paramref name="timeout"/> passes on <paramref name="time"/>'s clock.</summary>
    public void WaitForHandBack(TimeSpan timeout, TimeProvider time)
    {
        using ITimer timer = time.CreateTimer(
            static signal => ((ManualResetEventSlim)signal!).Set(), HandedBackSignal, timeout, Timeout.InfiniteTimeSpan);
        HandedBackSignal.Wait();
    }

    private static HandlerResult Defect(Exception e) => new(HandlerOutcome.Stop, e);

    /// <summary>Outside the gate: starts a worker for the slot the gate took.</summary>
    private void StartWorkerIf(bool slotTaken)
    {
        if (slotTaken)
        {
            _ = Task.Factory.StartNew(
                static workers => ((HandlerWorkers<TWork>)workers!).WorkAsync(null, default),
                this,
                CancellationToken.None,
                TaskCreationOptions.DenyChildAttach,
                _threads);
        }
    }

    /// <summary>
    /// A worker: runs the handler of the work in hand (one the loop started, when given), hands it back, and takes the
    /// next ready sequence's next work, until none is ready. It holds one slot throughout.
    /// </summary>
    private async Task WorkAsync(TWork? work, ValueTask<HandlerResult> started)
    {
        bool startedOnLoop = work is not null;
        while (true)
        {
            if (work is null && !_gate.TryTakeNext(out work))
            {
                return;
            }

            if (work.NeedsHandler)
            {
                HandlerResult result;
                try
                {
                    result = startedOnLoop ? await started.ConfigureAwait(false) : await Start(work).ConfigureAwait(false);
                }
                catch (Exception e)
                {
                    result = Defect(e); // a started handler that faults, as Start says
                }

                work.Result = result;
            }

            startedOnLoop = false;
            _gate.HandBack(work); // work that needs no handler keeps the result it came with (poison: none)
            HandedBackSignal.Set();
            work = null;
        }
    }
}
