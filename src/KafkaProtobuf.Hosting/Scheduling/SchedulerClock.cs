using System;
using System.Diagnostics;
using System.Threading;

namespace KafkaProtobuf.Hosting.Scheduling;

/// <summary>
/// The scheduler's time: when a paused partition is due, and how a rebalance or shutdown waits for handlers. Tests
/// replace it to run the scheduler without waiting (a clock that moves when told, a wait that runs the test's next step).
/// </summary>
internal class SchedulerClock
{
    public static readonly SchedulerClock System = new();

    /// <summary>Time since some fixed point, for comparisons only.</summary>
    public virtual TimeSpan Now => TimeSpan.FromTicks((long)(Stopwatch.GetTimestamp() * ((double)TimeSpan.TicksPerSecond / Stopwatch.Frequency)));

    /// <summary>Waits until a worker hands a record back or <paramref name="timeout"/> passes.</summary>
    public virtual void WaitForHandBack(ManualResetEventSlim handedBack, TimeSpan timeout) => handedBack.Wait(timeout);
}
