using KafkaProtobuf.Hosting.Batching;
using Xunit;

namespace KafkaProtobuf.Tests.Hosting.Batching;

/// <summary>The collector's chunks of concluded batches' copies, kept for the next batches up to a small total.</summary>
public sealed class ChunkPoolTests
{
    [Fact]
    public void AChunkGivenBack_IsTheNextBatchs_WhenItIsLargeEnough()
    {
        var pool = new ChunkPool(maxKeptBytes: 4_096);
        byte[] chunk = pool.Rent(100, 1_024);
        Assert.Equal(1_024, chunk.Length);

        pool.Return(chunk);

        Assert.NotSame(chunk, pool.Rent(2_000, 2_048)); // too small: a new one
        Assert.Same(chunk, pool.Rent(500, 1_024));
        Assert.NotSame(chunk, pool.Rent(500, 1_024)); // taken: not given twice
    }

    [Fact]
    public void WhatIsKept_StaysWithinItsLimit_TheRestIsLeftToTheGC()
    {
        var pool = new ChunkPool(maxKeptBytes: 3_000);
        byte[] first = pool.Rent(1_024, 1_024);
        byte[] second = pool.Rent(1_024, 1_024);
        byte[] third = pool.Rent(1_024, 1_024);

        pool.Return(first);
        pool.Return(second);
        pool.Return(third); // 3,072 bytes would pass the limit

        byte[][] rented = [pool.Rent(1, 1), pool.Rent(1, 1), pool.Rent(1, 1)];
        Assert.Contains(rented, r => ReferenceEquals(r, first));
        Assert.Contains(rented, r => ReferenceEquals(r, second));
        Assert.DoesNotContain(rented, r => ReferenceEquals(r, third));
    }
}
