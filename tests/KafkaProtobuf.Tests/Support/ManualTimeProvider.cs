using System;
using System.Threading;

namespace KafkaProtobuf.Tests.Support;

/// <summary>A clock that moves only when told: timestamps for code that measures lifetimes (tokens), no timers.</summary>
public sealed class ManualTimeProvider : TimeProvider
{
    private long _ticks = 1;

    public override long TimestampFrequency => TimeSpan.TicksPerSecond;

    public override long GetTimestamp() => Interlocked.Read(ref _ticks);

    public void Advance(TimeSpan by) => Interlocked.Add(ref _ticks, by.Ticks);
}
