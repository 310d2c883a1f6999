using System;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Conclusion;
using KafkaProtobuf.Hosting.Handling;
using Xunit;

namespace KafkaProtobuf.Tests.Hosting;

/// <summary>
/// What a record whose dead letter was not written carries to its next reading: taken once, at its own position only,
/// and forgotten with its partition when the partition goes (its new owner handles it afresh).
/// </summary>
public sealed class UnwrittenFailuresTests
{
    private static readonly HandlerResult Failed = new(HandlerOutcome.DeadLetter, new TimeoutException("no answer"), attemptsRanOut: true);

    [Fact]
    public void AKeptFailure_IsTakenOnce_AtItsOwnPositionOnly()
    {
        var unwritten = new UnwrittenFailures();
        unwritten.Remember(new TopicPartitionOffset("orders", 3, 41), Failed);

        Assert.False(unwritten.TryTake("orders", 3, 42, out _));
        Assert.False(unwritten.TryTake("orders", 2, 41, out _));
        Assert.False(unwritten.TryTake("orders.retry.1", 3, 41, out _));
        Assert.True(unwritten.TryTake("orders", 3, 41, out HandlerResult taken));
        Assert.Same(Failed.Failure, taken.Failure);
        Assert.True(taken.AttemptsRanOut);
        Assert.False(unwritten.TryTake("orders", 3, 41, out _));
    }

    [Fact]
    public void RevokedPartitions_ForgetTheirFailures_AndOnlyTheirs()
    {
        var unwritten = new UnwrittenFailures();
        unwritten.Remember(new TopicPartitionOffset("orders", 3, 41), Failed);
        unwritten.Remember(new TopicPartitionOffset("orders", 4, 7), Failed);
        unwritten.Remember(new TopicPartitionOffset("payments", 3, 9), Failed);

        unwritten.Forget([new TopicPartition("orders", 3), new TopicPartition("refunds", 0)]);

        Assert.False(unwritten.TryTake("orders", 3, 41, out _));
        Assert.True(unwritten.TryTake("orders", 4, 7, out _));
        Assert.True(unwritten.TryTake("payments", 3, 9, out _));
    }
}
