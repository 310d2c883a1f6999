using System;
using KafkaProtobuf.Hosting.Handling;
using Xunit;

namespace KafkaProtobuf.Tests.Hosting;

/// <summary>
/// The one back-off (src/Shared, compiled into the hosting and registry packages): exponential, capped, with jitter
/// between half and all of the ceiling. The random source is pinned here, so each bound is exact.
/// </summary>
public sealed class ExponentialBackoffTests
{
    [Theory]
    [InlineData(1, 100)]
    [InlineData(2, 200)]
    [InlineData(3, 400)]
    [InlineData(6, 1_000)] // 3,200 capped at the maximum
    [InlineData(200, 1_000)] // no overflow however many attempts
    public void TheCeilingDoublesPerAttempt_UpToTheMaximum_AndTheJitterKeepsHalfToAllOfIt(int attempt, double ceilingMs)
    {
        var least = new ExponentialBackoff(TimeSpan.FromMilliseconds(100), TimeSpan.FromSeconds(1), () => 0);
        var most = new ExponentialBackoff(TimeSpan.FromMilliseconds(100), TimeSpan.FromSeconds(1), () => 1);

        Assert.Equal(ceilingMs / 2, least.Delay(attempt).TotalMilliseconds, precision: 6);
        Assert.Equal(ceilingMs, most.Delay(attempt).TotalMilliseconds, precision: 6);
    }

    [Fact]
    public void WithoutAPinnedSource_EveryDelayIsWithinItsBounds()
    {
        var backoff = new ExponentialBackoff(TimeSpan.FromMilliseconds(100), TimeSpan.FromSeconds(1));
        for (int i = 0; i < 1_000; i++)
        {
            Assert.InRange(backoff.Delay(2).TotalMilliseconds, 100, 200);
        }
    }
}
