using System;
using System.Collections.Generic;
using Confluent.Kafka;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.Hosting.Consuming;
using KafkaProtobuf.Tests.Hosting.Scheduling;
using Xunit;

namespace KafkaProtobuf.Tests.Hosting.Consuming;

/// <summary>
/// Where a partition's pause is decided, for the read-ahead budget and for a delay before a record is read again, with a
/// Kafka client that records what it is asked and a clock the test moves.
/// </summary>
public sealed class PartitionPausingTests
{
    private static readonly TimeSpan Delay = TimeSpan.FromSeconds(1);

    private readonly SchedulerTime _clock = new();
    private readonly Calls _client = new();

    private static TopicPartition P(int partition) => new("orders", partition);

    private static TopicPartitionOffset At(int partition, long offset) => new("orders", partition, offset);

    [Fact]
    public void ThePartitionThatTakesTheBudgetPastItsEnd_Pauses_AndEveryPartitionSoPausedResumesAtHalf()
    {
        var pausing = new PartitionPausing(_client, 10, _clock);

        Assert.False(pausing.Charge(P(0), 6));
        Assert.True(pausing.Charge(P(1), 4));
        Assert.True(pausing.Charge(P(2), 1));
        Assert.Equal(["pause 1", "pause 2"], _client.Log);

        pausing.Release(5);
        pausing.ResumeDue();
        Assert.Equal(2, _client.Log.Count); // 6 left: more than half of 10

        pausing.Release(1);
        pausing.ResumeDue();
        Assert.Equal(["pause 1", "pause 2", "resume 1", "resume 2"], _client.Log);
    }

    [Fact]
    public void ADelay_ResumesItsPartition_FromTheRecordToReadAgain_OnceItIsOver()
    {
        var pausing = new PartitionPausing(_client, 10, _clock);

        pausing.PauseFor(At(0, 5), Delay, PartitionPauses.SchemaUnavailable);
        pausing.ResumeDue();
        Assert.Equal(["pause 0"], _client.Log);

        _clock.Time += Delay;
        pausing.ResumeDue();
        Assert.Equal(["pause 0", "resume 0", "seek 0@5"], _client.Log);
    }

    [Fact]
    public void APartitionPausedForBoth_ResumesOnlyWhenNeitherHoldsIt()
    {
        var pausing = new PartitionPausing(_client, 10, _clock);
        pausing.Charge(P(0), 10);
        pausing.PauseFor(At(0, 5), Delay, PartitionPauses.SchemaUnavailable);

        _clock.Time += Delay;
        pausing.ResumeDue();
        Assert.Equal(["pause 0"], _client.Log); // the budget still holds it

        pausing.Release(10);
        pausing.ResumeDue();
        Assert.Equal(["pause 0", "resume 0", "seek 0@5"], _client.Log);
    }

    [Theory]
    [InlineData(5, 9)]
    [InlineData(9, 5)]
    public void PausedToReadTwoRecordsAgain_ThePartitionReadsTheEarlierAgain_AfterTheLaterTime(long first, long second)
    {
        // A record consumed before the first pause took effect belongs to the old reading: it must not move the partition on.
        var pausing = new PartitionPausing(_client, 10, _clock);
        pausing.PauseFor(At(0, first), Delay, PartitionPauses.SchemaUnavailable);
        _clock.Time += TimeSpan.FromMilliseconds(500);
        pausing.PauseFor(At(0, second), Delay, PartitionPauses.SchemaUnavailable);

        _clock.Time += TimeSpan.FromMilliseconds(500);
        pausing.ResumeDue();
        Assert.Equal(["pause 0"], _client.Log); // the second pause's delay is not over

        _clock.Time += TimeSpan.FromMilliseconds(500);
        pausing.ResumeDue();
        Assert.Equal(["pause 0", "resume 0", "seek 0@5"], _client.Log);
    }

    [Fact]
    public void APartitionTakenAway_FetchesAgain_AndForgetsItsRecordToReadAgain()
    {
        // librdkafka keeps an application's pause across a rebalance: given back, the partition would stay paused.
        var pausing = new PartitionPausing(_client, 10, _clock);
        pausing.PauseFor(At(0, 5), Delay, PartitionPauses.SchemaUnavailable);

        pausing.LetGo([P(0), P(1)]);

        Assert.Equal(["pause 0", "resume 0"], _client.Log);
        _clock.Time += Delay;
        pausing.ResumeDue();
        Assert.Equal(2, _client.Log.Count);
    }

    /// <summary>The Kafka client: what it was asked, in order.</summary>
    private sealed class Calls : IPartitionFetching
    {
        public List<string> Log { get; } = [];

        public void Pause(TopicPartition partition) => Log.Add("pause " + partition.Partition.Value);

        public void Resume(TopicPartition partition) => Log.Add("resume " + partition.Partition.Value);

        public void Seek(TopicPartitionOffset record) => Log.Add("seek " + record.Partition.Value + "@" + record.Offset.Value);
    }
}
