using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Text;
using System.Threading;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tests.Support;
using Vectors.Telemetry.V1;
using Xunit;
using Xunit.Abstractions;
using static KafkaProtobuf.Tests.EndToEnd.DeviceRecords;

namespace KafkaProtobuf.Tests.EndToEnd;

/// <summary>
/// <see cref="DeadLetterExtensions.DeadLetter{TKey, TValue}(IConsumer{TKey, TValue}, ConsumeException, IProducer{byte[], byte[]}, string, TimeSpan, DeadLetterOffsetHandling)"/>
/// in the README's loop, on the embedded cluster with faults on purpose: it follows the loop's offset management
/// (store, or store and commit for manual-commit users), lets no commit error escape, and never skips a record whose
/// dead letter was not written. Every wait has a deadline; nothing asserts on time.
/// </summary>
public sealed class DeadLetterTests(ITestOutputHelper output) : IDisposable
{
    private static readonly TimeSpan Deadline = TimeSpan.FromSeconds(60);
    private const string Topic = "orders";
    private const string DeadLetterTopic = "orders.dlq";

    private readonly EmbeddedKafkaCluster _cluster = StartCluster();

    public void Dispose() => _cluster.Dispose();

    private static EmbeddedKafkaCluster StartCluster()
    {
        EmbeddedKafkaCluster cluster = EmbeddedKafkaCluster.Start(3);
        cluster.SetGroupInitialRebalanceDelay(TimeSpan.Zero);
        return cluster;
    }

    /// <summary>A poison value: JSON, as another team's producer might write it (UnknownMagicByte).</summary>
    private static byte[] PoisonValue(int sequence) => Encoding.UTF8.GetBytes("{\"id\":\"poison-" + sequence.ToString(CultureInfo.InvariantCulture) + "\"}");

    /// <summary>Where each produced record landed: good ones with their sequence number, poison ones with their bytes.</summary>
    private sealed class Layout
    {
        public Dictionary<TopicPartitionOffset, int> Good { get; } = [];

        public Dictionary<TopicPartitionOffset, byte[]> Poison { get; } = [];
    }

    private readonly Layout _layout = new();
    private int _sequence;

    /// <summary>Writes <paramref name="perPartition"/> values to each partition, poison where <paramref name="isPoison"/>(partition, i) says.</summary>
    private Layout Produce(int partitions, Func<int, int, bool> isPoison, int perPartition)
    {
        var errors = new List<Error>();
        using (IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(_cluster.CreateProducerConfig()).Build())
        {
            for (int p = 0; p < partitions; p++)
            {
                for (int i = 0; i < perPartition; i++)
                {
                    int sequence = _sequence++;
                    bool bad = isPoison(p, i);
                    byte[] value = bad ? PoisonValue(sequence) : GoodValue(sequence);
                    producer.Produce(new TopicPartition(Topic, p), new Message<byte[], byte[]> { Value = value }, report =>
                    {
                        lock (_layout)
                        {
                            if (report.Error.IsError)
                            {
                                errors.Add(report.Error);
                            }
                            else if (bad)
                            {
                                _layout.Poison.Add(report.TopicPartitionOffset, value);
                            }
                            else
                            {
                                _layout.Good.Add(report.TopicPartitionOffset, sequence);
                            }
                        }
                    });
                }
            }

            Assert.Equal(0, producer.Flush(Deadline));
        }

        Assert.Empty(errors);
        return _layout;
    }

    private IConsumer<Ignore, Device> Consumer(string group, DeadLetterOffsetHandling handling)
    {
        ConsumerConfig config = _cluster.CreateConsumerConfig(group);
        if (handling == DeadLetterOffsetHandling.Store)
        {
            config.EnableAutoCommit = true;         // the README's loop: auto-commit sends the stored offsets
            config.EnableAutoOffsetStore = false;
            config.AutoCommitIntervalMs = 100;      // often, so that an early commit would be caught
        }

        return new ConsumerBuilder<Ignore, Device>(config).SetProtobufValueDeserializer().Build();
    }

    private IProducer<byte[], byte[]> CopyProducer(int messageTimeoutMs = 30_000)
    {
        ProducerConfig config = _cluster.CreateProducerConfig();
        config.MessageTimeoutMs = messageTimeoutMs;
        return new ProducerBuilder<byte[], byte[]>(config).Build();
    }

    private static RecommendedLoop<Ignore, Device> Loop(
        IConsumer<Ignore, Device> consumer, IProducer<byte[], byte[]> deadLetters, DeadLetterOffsetHandling handling, string name = "loop") =>
        new(consumer, deadLetters, DeadLetterTopic, handling) { Name = name };

    /// <summary>Runs the loop on this thread until <paramref name="done"/> or the deadline.</summary>
    private static void RunUntil(RecommendedLoop<Ignore, Device> loop, Func<bool> done)
    {
        using var stop = new CancellationTokenSource(Deadline);
        Thread thread = loop.Start(stop.Token);
        while (!done() && !stop.IsCancellationRequested && thread.IsAlive)
        {
            Thread.Sleep(20);
        }

        stop.Cancel();
        Assert.True(thread.Join(Deadline), "the loop ends once asked to");
    }

    /// <summary>The group's committed offset for a partition, asked of the cluster by a consumer outside the group's members.</summary>
    private long CommittedOffset(string group, int partition)
    {
        using IConsumer<Ignore, Ignore> probe = new ConsumerBuilder<Ignore, Ignore>(_cluster.CreateConsumerConfig(group)).Build();
        return probe.Committed([new TopicPartition(Topic, partition)], TimeSpan.FromSeconds(10)).Single().Offset.Value;
    }

    /// <summary>Every dead letter in the topic, with its source offset from the kafkaprotobuf.source.* headers.</summary>
    private List<(TopicPartitionOffset Source, byte[] Value)> ReadDeadLetters(int atLeast)
    {
        List<ConsumeResult<byte[], byte[]>> letters = DeviceRecords.ReadDeadLetters(_cluster.CreateConsumerConfig(), DeadLetterTopic, Deadline);
        Assert.True(letters.Count >= atLeast, $"{letters.Count} dead letters, expected at least {atLeast}");
        return [.. letters.Select(l => (SourceOf(l.Message.Headers), l.Message.Value))];
    }

    /// <summary>The first record a new member of <paramref name="group"/> is given on partition 0 (good or poison).</summary>
    private long FirstOffsetANewMemberReads(string group)
    {
        using IConsumer<Ignore, Device> consumer = Consumer(group, DeadLetterOffsetHandling.StoreAndCommit);
        consumer.Subscribe(Topic);
        DateTime deadline = DateTime.UtcNow + Deadline;
        while (DateTime.UtcNow < deadline)
        {
            try
            {
                if (consumer.Consume(TimeSpan.FromMilliseconds(100)) is { } result)
                {
                    return result.Offset.Value;
                }
            }
            catch (ConsumeException e) when (e.IsDeserializationFailure())
            {
                return e.ConsumerRecord.Offset.Value;
            }
        }

        throw new TimeoutException("the new member read nothing");
    }

    [Theory]
    [InlineData(DeadLetterOffsetHandling.Store)]
    [InlineData(DeadLetterOffsetHandling.StoreAndCommit)]
    public void CloseAfterATrailingPoisonRecord_ANewMemberRereadsNothing(DeadLetterOffsetHandling handling)
    {
        _cluster.CreateTopic(Topic, 1);
        _cluster.CreateTopic(DeadLetterTopic, 1);
        Layout layout = Produce(1, (_, i) => i == 19, perPartition: 20); // 19 good records, then a poison record at 19
        string group = "close-" + Guid.NewGuid().ToString("N");

        using (IProducer<byte[], byte[]> deadLetters = CopyProducer())
        using (IConsumer<Ignore, Device> consumer = Consumer(group, handling))
        {
            consumer.Subscribe(Topic);
            RecommendedLoop<Ignore, Device> loop = Loop(consumer, deadLetters, handling);
            RunUntil(loop, () => !loop.DeadLettered.IsEmpty);

            Assert.Null(loop.Escaped);
            Assert.Equal(19, loop.Good.Count);
            CopyResult result = Assert.Single(loop.DeadLettered);
            Assert.Equal(19, result.Record.Offset.Value);
            Assert.Equal(handling == DeadLetterOffsetHandling.Store ? OffsetOutcome.Stored : OffsetOutcome.Committed, result.Offset);
            Assert.Null(result.OffsetError);
            consumer.Close(); // before the fix: committed the stored offset 19 over DeadLetter's 20
        }

        Assert.Equal(20, CommittedOffset(group, 0));

        // A record after the poison one: a new member's first record must be it, not the poison record again.
        Produce(1, (_, _) => false, perPartition: 1);
        Assert.Equal(20, FirstOffsetANewMemberReads(group));
        Assert.Single(ReadDeadLetters(atLeast: 1));
    }

    [Theory]
    [InlineData(DeadLetterOffsetHandling.Store)]
    [InlineData(DeadLetterOffsetHandling.StoreAndCommit)]
    public void PoisonRecordsWhileASecondMemberJoinsAndLeaves_NothingEscapes_EachDeliveryDeadLetteredOnce_NothingIsLost(DeadLetterOffsetHandling handling)
    {
        const int partitions = 6;
        _cluster.CreateTopic(Topic, partitions);
        _cluster.CreateTopic(DeadLetterTopic, 1);
        Layout layout = Produce(partitions, (_, i) => i % 100 == 37, perPartition: 500); // 3,000 records, 1% poison
        string group = "rebalance-" + Guid.NewGuid().ToString("N");

        using IProducer<byte[], byte[]> deadLetters = CopyProducer();
        using IConsumer<Ignore, Device> first = Consumer(group, handling);
        using IConsumer<Ignore, Device> second = Consumer(group, handling);
        using var stopFirst = new CancellationTokenSource(Deadline);
        using var stopSecond = new CancellationTokenSource(Deadline);
        RecommendedLoop<Ignore, Device> secondLoop = Loop(second, deadLetters, handling, "second");
        Thread? secondThread = null;
        int heldPoisonRecords = 0;
        bool lastBatchStarted = false;

        // The first member holds a poison record until the group is rebalancing, then dead-letters it: once while the
        // second member joins, once while it leaves. Before the fix, DeadLetter's commit threw RebalanceInProgress here.
        RecommendedLoop<Ignore, Device> firstLoop = new(first, deadLetters, DeadLetterTopic, handling)
        {
            Name = "first",
            BeforeDeadLetter = e =>
            {
                if (heldPoisonRecords == 0)
                {
                    int joins = _cluster.RequestCount(KafkaApi.JoinGroup);
                    second.Subscribe(Topic);
                    secondThread = secondLoop.Start(stopSecond.Token);
                    WaitFor(() => _cluster.RequestCount(KafkaApi.JoinGroup) > joins, "the second member's JoinGroup");
                    heldPoisonRecords++;
                }
                else if (heldPoisonRecords == 1 && Volatile.Read(ref lastBatchStarted))
                {
                    int leaves = _cluster.RequestCount(KafkaApi.LeaveGroup);
                    stopSecond.Cancel();
                    Assert.True(secondThread!.Join(Deadline));
                    second.Close();
                    WaitFor(() => _cluster.RequestCount(KafkaApi.LeaveGroup) > leaves, "the second member's LeaveGroup");
                    heldPoisonRecords++;
                }
            },
        };

        first.Subscribe(Topic);
        Thread firstThread = firstLoop.Start(stopFirst.Token);
        try
        {
            // Once both members have shared the stream, every partition gets a poison record at its head, so the first
            // member meets one while the second is still in the group.
            WaitFor(() => !secondLoop.Good.IsEmpty && Covered(layout, firstLoop, secondLoop), "both members to consume the first batch");
            // Flag first: the first member may meet the new poison records before Produce has returned.
            Volatile.Write(ref lastBatchStarted, true);
            Produce(partitions, (_, i) => i == 0, perPartition: 50);
            WaitFor(() => heldPoisonRecords == 2 && Covered(layout, firstLoop, secondLoop), "the second member to leave and everything to be consumed");
        }
        finally
        {
            stopFirst.Cancel();
            stopSecond.Cancel();
            Assert.True(firstThread.Join(Deadline));
            Assert.True(secondThread?.Join(Deadline) ?? true);
        }

        Assert.Null(firstLoop.Escaped);
        Assert.Null(secondLoop.Escaped);
        Assert.Null(firstLoop.StoppedOn);
        Assert.Null(secondLoop.StoppedOn);
        Assert.Empty(firstLoop.DeadLetterFailures);
        Assert.Empty(secondLoop.DeadLetterFailures);

        // Nothing lost: every good record consumed, every poison record dead-lettered.
        var goodSeen = firstLoop.Good.Concat(secondLoop.Good).Select(r => r.TopicPartitionOffset).ToList();
        Assert.Equal(layout.Good.Keys.OrderBy(Key), goodSeen.Distinct().OrderBy(Key));
        Assert.All(firstLoop.Good.Concat(secondLoop.Good), r => Assert.Equal(layout.Good[r.TopicPartitionOffset], SequenceOf(r.Message.Value)));
        CopyResult[] all = [.. firstLoop.DeadLettered, .. secondLoop.DeadLettered];
        List<(TopicPartitionOffset Source, byte[] Value)> letters = ReadDeadLetters(atLeast: all.Length);
        Assert.Equal(layout.Poison.Keys.OrderBy(Key), letters.Select(l => l.Source).Distinct().OrderBy(Key));
        Assert.All(letters, l => Assert.Equal(layout.Poison[l.Source], l.Value));

        // Once per delivery: a record read again after a rebalance (its offset not committed) is dead-lettered again,
        // at least once; but each DeadLetter call wrote exactly one letter, and none was written without one.
        Assert.Equal(
            all.GroupBy(r => r.Record).Select(g => (g.Key, g.Count())).OrderBy(x => Key(x.Key)),
            letters.GroupBy(l => l.Source).Select(g => (g.Key, g.Count())).OrderBy(x => Key(x.Key)));

        output.WriteLine(
            $"{handling}: {layout.Good.Count} good and {layout.Poison.Count} poison records; {goodSeen.Count - goodSeen.Distinct().Count()} good records seen twice, "
            + $"{letters.Count - layout.Poison.Count} poison records dead-lettered twice; offset outcomes: "
            + string.Join(", ", all.GroupBy(r => r.Offset + (r.OffsetError is null ? string.Empty : "/" + r.OffsetError.Code)).Select(g => g.Key + " x" + g.Count())));
    }

    [Theory]
    [InlineData(DeadLetterOffsetHandling.Store)]
    [InlineData(DeadLetterOffsetHandling.StoreAndCommit)]
    public void DeadLetterProduceFailsRetriablyThenFatally_TheLoopBacksOffThenStops_TheRecordIsNeverSkippedNorCommittedEarly(DeadLetterOffsetHandling handling)
    {
        _cluster.CreateTopic(Topic, 1);
        _cluster.CreateTopic(DeadLetterTopic, 1);
        Layout layout = Produce(1, (_, i) => i is 5 or 11, perPartition: 17); // poison records at 5 and 11
        string group = "failing-" + Guid.NewGuid().ToString("N");
        var redelivered = new List<long>();
        var committedAtFailures = new List<long>();

        // The dead-letter topic has no leader: each dead letter times out after the producer's 1 s message timeout.
        _cluster.SetPartitionLeader(DeadLetterTopic, 0, EmbeddedKafkaCluster.NoLeader);
        using (IProducer<byte[], byte[]> deadLetters = CopyProducer(messageTimeoutMs: 1_000))
        using (IConsumer<Ignore, Device> consumer = Consumer(group, handling))
        {
            consumer.Subscribe(Topic);
            RecommendedLoop<Ignore, Device> loop = null!;
            loop = new RecommendedLoop<Ignore, Device>(consumer, deadLetters, DeadLetterTopic, handling)
            {
                CopyTimeout = TimeSpan.FromSeconds(10),
                BeforeDeadLetter = e =>
                {
                    redelivered.Add(e.ConsumerRecord.Offset.Value);
                    if (e.ConsumerRecord.Offset == 11)
                    {
                        // The second poison record meets an error no retry cures.
                        _cluster.FailNextRequests(KafkaApi.Produce, ErrorCode.TopicAuthorizationFailed, 1);
                    }
                },
                AfterDeadLetterFailure = d =>
                {
                    committedAtFailures.Add(CommittedOffset(group, 0));
                    if (loop.DeadLetterFailures.Count == 3)
                    {
                        _cluster.SetPartitionLeader(DeadLetterTopic, 0, 1); // the leader is back
                    }
                },
            };
            RunUntil(loop, () => loop.StoppedOn is not null);

            // At least the three failures while the topic had no leader; on a slow machine a dead letter written just
            // after the leader came back may also outlive the producer's 1 s timeout, and is retried the same way.
            Assert.Null(loop.Escaped);
            Assert.InRange(loop.DeadLetterFailures.Count, 3, int.MaxValue);
            Assert.All(loop.DeadLetterFailures, d =>
            {
                Assert.True(d.IsRetriable);
                Assert.Equal(ErrorCode.Local_MsgTimedOut, d.Error.Code);
                Assert.Equal(5, d.Record.Offset.Value);
            });

            // After each failure the same record came again (DeadLetter moved the consumer back), and nothing past it was committed.
            Assert.Equal([.. Enumerable.Repeat(5L, loop.DeadLetterFailures.Count + 1), 11L], redelivered);
            Assert.All(committedAtFailures, c => Assert.True(c <= 5, $"committed {c} before the dead letter of 5 was written"));
            Assert.Equal(5, Assert.Single(loop.DeadLettered).Record.Offset.Value);

            // The loop stopped on purpose at the second poison record; everything before it was handled.
            Assert.NotNull(loop.StoppedOn);
            Assert.False(loop.StoppedOn!.IsRetriable);
            Assert.Equal(ErrorCode.TopicAuthorizationFailed, loop.StoppedOn.Error.Code);
            Assert.Equal(11, loop.StoppedOn.Record.Offset.Value);
            Assert.Equal(new long[] { 0, 1, 2, 3, 4, 6, 7, 8, 9, 10 }, loop.Good.Select(r => r.Offset.Value));
            consumer.Close();
        }

        // Not skipped, not committed: the group resumes at the record whose dead letter failed.
        Assert.Equal(11, CommittedOffset(group, 0));
        Assert.Equal(11, FirstOffsetANewMemberReads(group));
        (TopicPartitionOffset source, byte[] value) = Assert.Single(ReadDeadLetters(atLeast: 1));
        Assert.Equal(5, source.Offset.Value);
        Assert.Equal(layout.Poison[source], value);
    }

    [Fact]
    public void ARetriedDeadLetter_DoesNotHoldBackTheCommitsOfLaterRecords()
    {
        _cluster.CreateTopic(Topic, 1);
        _cluster.CreateTopic(DeadLetterTopic, 1);
        Produce(1, (_, i) => i == 5, perPartition: 40);
        string group = "after-retry-" + Guid.NewGuid().ToString("N");

        // The first dead letter times out (the dead-letter topic has no leader until the loop has seen that failure; a
        // number of refused requests raced the 1 s timeout with their retries and lost once in CI), the loop backs off,
        // DeadLetter's seek brings the record again, and the second attempt is written.
        _cluster.SetPartitionLeader(DeadLetterTopic, 0, EmbeddedKafkaCluster.NoLeader);
        using IProducer<byte[], byte[]> deadLetters = CopyProducer(messageTimeoutMs: 1_000);
        using IConsumer<Ignore, Device> consumer = Consumer(group, DeadLetterOffsetHandling.Store);
        consumer.Subscribe(Topic);
        RecommendedLoop<Ignore, Device> loop = new(consumer, deadLetters, DeadLetterTopic, DeadLetterOffsetHandling.Store)
        {
            AfterDeadLetterFailure = _ => _cluster.SetPartitionLeader(DeadLetterTopic, 0, 2),
        };
        using var stop = new CancellationTokenSource(Deadline);
        Thread thread = loop.Start(stop.Token);
        try
        {
            WaitFor(() => loop.Good.Count == 39 && !loop.DeadLettered.IsEmpty, "every record to be handled");

            // Still running: auto-commit alone must carry the group past the record whose first dead letter failed.
            WaitFor(() => CommittedOffset(group, 0) == 40, "the group's committed offset to reach the end");
        }
        finally
        {
            stop.Cancel();
            Assert.True(thread.Join(Deadline));
        }

        Assert.Null(loop.Escaped);
        Assert.NotEmpty(loop.DeadLetterFailures);
        Assert.All(loop.DeadLetterFailures, d => Assert.Equal(5, d.Record.Offset.Value));
        Assert.Equal(5, Assert.Single(loop.DeadLettered).Record.Offset.Value);
    }

    [Fact]
    public void FetchErrorsPassedOnByConsume_TheLoopCarriesOn_NoRecordIsSkippedOrRepeated()
    {
        _cluster.CreateTopic(Topic, 1);
        _cluster.CreateTopic(DeadLetterTopic, 1);
        Layout layout = Produce(1, (_, i) => i == 7, perPartition: 30);
        using IProducer<byte[], byte[]> deadLetters = CopyProducer();
        using IConsumer<Ignore, Device> consumer = Consumer("fetch-errors-" + Guid.NewGuid().ToString("N"), DeadLetterOffsetHandling.Store);

        // Every fetch fails at first: librdkafka passes each failure on to Consume as a ConsumeException without a record.
        _cluster.FailNextRequests(KafkaApi.Fetch, ErrorCode.RequestTimedOut, 4);
        consumer.Assign(new TopicPartitionOffset(Topic, 0, Offset.Beginning));
        RecommendedLoop<Ignore, Device> loop = Loop(consumer, deadLetters, DeadLetterOffsetHandling.Store);
        RunUntil(loop, () => loop.Good.Count + loop.DeadLettered.Count >= 30);

        Assert.Null(loop.Escaped);
        Assert.NotEmpty(loop.ConsumerErrors); // before the fix this escaped the README's loop
        Assert.All(loop.ConsumerErrors, e => Assert.Equal(ErrorCode.RequestTimedOut, e.Error.Code));
        Assert.Equal(layout.Good.Keys.Select(o => o.Offset.Value).Order(), loop.Good.Select(r => r.Offset.Value));
        Assert.Equal(7, Assert.Single(loop.DeadLettered).Record.Offset.Value);
    }

    [Fact]
    public void DeadLetterNotAcknowledgedInTime_IsRetriable_AndALateDeliveryMakesADuplicateThatItsSourceHeadersName()
    {
        _cluster.CreateTopic(Topic, 1);
        _cluster.CreateTopic(DeadLetterTopic, 1);
        Layout layout = Produce(1, (_, i) => i == 2, perPartition: 4);
        _cluster.SetPartitionLeader(DeadLetterTopic, 0, EmbeddedKafkaCluster.NoLeader);

        using IProducer<byte[], byte[]> deadLetters = CopyProducer(messageTimeoutMs: 60_000); // outlives DeadLetter's wait
        using IConsumer<Ignore, Device> consumer = Consumer("late-" + Guid.NewGuid().ToString("N"), DeadLetterOffsetHandling.Store);
        consumer.Subscribe(Topic);
        RecommendedLoop<Ignore, Device> loop = null!;
        loop = new RecommendedLoop<Ignore, Device>(consumer, deadLetters, DeadLetterTopic, DeadLetterOffsetHandling.Store)
        {
            CopyTimeout = TimeSpan.FromMilliseconds(500), // the first wait: no leader, so it cannot be acknowledged in time however fast the machine
            AfterDeadLetterFailure = _ =>
            {
                _cluster.SetPartitionLeader(DeadLetterTopic, 0, 2);
                loop.CopyTimeout = Deadline; // the second is acknowledged once the leader is back, however slow the machine
            },
        };
        RunUntil(loop, () => !loop.DeadLettered.IsEmpty && loop.Good.Count == 3);

        Assert.Null(loop.Escaped);
        DeadLetterException timedOut = Assert.Single(loop.DeadLetterFailures);
        Assert.Equal(ErrorCode.Local_TimedOut, timedOut.Error.Code);
        Assert.True(timedOut.IsRetriable);
        Assert.Contains("moved back to the record", timedOut.Message, StringComparison.Ordinal);

        // The first, unacknowledged copy was delivered after all: two dead letters, one source.
        Assert.Equal(0, deadLetters.Flush(Deadline));
        List<(TopicPartitionOffset Source, byte[] Value)> letters = ReadDeadLetters(atLeast: 2);
        Assert.Equal(2, letters.Count);
        Assert.All(letters, l => Assert.Equal(layout.Poison.Keys.Single(), l.Source));
    }

    [Theory]
    [InlineData(DeadLetterOffsetHandling.Store)]
    [InlineData(DeadLetterOffsetHandling.StoreAndCommit)]
    public void PartitionNoLongerAssigned_TheOffsetIsReportedNotStored_NotThrown(DeadLetterOffsetHandling handling)
    {
        _cluster.CreateTopic(Topic, 1);
        _cluster.CreateTopic(DeadLetterTopic, 1);
        Produce(1, (_, i) => i == 0, perPartition: 1);

        using IProducer<byte[], byte[]> deadLetters = CopyProducer();
        using IConsumer<Ignore, Device> consumer = Consumer("revoked-" + Guid.NewGuid().ToString("N"), handling);
        consumer.Assign(new TopicPartitionOffset(Topic, 0, Offset.Beginning));
        ConsumeException poison = ConsumeFirstPoison(consumer);
        consumer.Unassign(); // as a rebalance would revoke it

        CopyResult result = consumer.DeadLetter(poison, deadLetters, DeadLetterTopic, TimeSpan.FromSeconds(10), handling);

        Assert.Equal(OffsetOutcome.NotStored, result.Offset);
        Assert.Equal(ErrorCode.Local_State, result.OffsetError?.Code);
        Assert.Equal(DeadLetterTopic, result.Copy.Topic);
        Assert.Contains("NotStored", result.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public void CommitFailsWhileTheGroupRebalances_StoreAndCommitReportsNotCommitted_AndTheNextCommitCarriesIt()
    {
        _cluster.CreateTopic(Topic, 1);
        _cluster.CreateTopic(DeadLetterTopic, 1);
        Produce(1, (_, i) => i == 0, perPartition: 2);
        string group = "commit-" + Guid.NewGuid().ToString("N");

        using IProducer<byte[], byte[]> deadLetters = CopyProducer();
        using IConsumer<Ignore, Device> consumer = Consumer(group, DeadLetterOffsetHandling.StoreAndCommit);
        consumer.Subscribe(Topic);
        ConsumeException poison = ConsumeFirstPoison(consumer);
        _cluster.FailNextRequests(KafkaApi.OffsetCommit, ErrorCode.RebalanceInProgress, 1);

        CopyResult result = consumer.DeadLetter(poison, deadLetters, DeadLetterTopic, TimeSpan.FromSeconds(10), DeadLetterOffsetHandling.StoreAndCommit);

        Assert.Equal(OffsetOutcome.NotCommitted, result.Offset);
        Assert.Equal(ErrorCode.RebalanceInProgress, result.OffsetError?.Code);
        Assert.Equal(Offset.Unset.Value, CommittedOffset(group, 0)); // really not committed

        consumer.Commit(); // the stored offset goes with the consumer's next commit
        Assert.Equal(1, CommittedOffset(group, 0));
    }

    [Fact]
    public void InvalidArguments_AreRejectedBeforeAnythingIsProduced()
    {
        _cluster.CreateTopic(Topic, 1);
        _cluster.CreateTopic(DeadLetterTopic, 1);
        Produce(1, (_, i) => i == 0, perPartition: 1);
        using IProducer<byte[], byte[]> deadLetters = CopyProducer();
        using IConsumer<Ignore, Device> consumer = Consumer("args-" + Guid.NewGuid().ToString("N"), DeadLetterOffsetHandling.Store);
        consumer.Assign(new TopicPartitionOffset(Topic, 0, Offset.Beginning));
        ConsumeException poison = ConsumeFirstPoison(consumer);
        TimeSpan ten = TimeSpan.FromSeconds(10);

        Assert.Throws<ArgumentNullException>(() => ((IConsumer<Ignore, Device>)null!).DeadLetter(poison, deadLetters, DeadLetterTopic, ten));
        Assert.Throws<ArgumentNullException>(() => consumer.DeadLetter(poison, null!, DeadLetterTopic, ten));
        Assert.Throws<ArgumentException>(() => consumer.DeadLetter(poison, deadLetters, string.Empty, ten));
        Assert.Throws<ArgumentOutOfRangeException>(() => consumer.DeadLetter(poison, deadLetters, DeadLetterTopic, TimeSpan.FromSeconds(-1)));
        Assert.Throws<ArgumentOutOfRangeException>(() => consumer.DeadLetter(poison, deadLetters, DeadLetterTopic, TimeSpan.FromDays(30)));
        Assert.Throws<ArgumentOutOfRangeException>(() => consumer.DeadLetter(poison, deadLetters, DeadLetterTopic, ten, (DeadLetterOffsetHandling)7));
        var notDeserialization = new ConsumeException(poison.ConsumerRecord, new Error(ErrorCode.Local_Fail));
        Assert.Throws<ArgumentException>(() => consumer.DeadLetter(notDeserialization, deadLetters, DeadLetterTopic, ten));

        Assert.Equal(0, deadLetters.Flush(ten));
        Assert.Equal(0, consumer.QueryWatermarkOffsets(new TopicPartition(DeadLetterTopic, 0), ten).High.Value);
    }

    private static ConsumeException ConsumeFirstPoison(IConsumer<Ignore, Device> consumer)
    {
        DateTime deadline = DateTime.UtcNow + Deadline;
        while (DateTime.UtcNow < deadline)
        {
            try
            {
                consumer.Consume(TimeSpan.FromMilliseconds(100));
            }
            catch (ConsumeException e) when (e.IsDeserializationFailure())
            {
                return e;
            }
        }

        throw new TimeoutException("no poison record arrived");
    }

    private static bool Covered(Layout layout, params RecommendedLoop<Ignore, Device>[] loops) =>
        loops.SelectMany(l => l.Handled()).Distinct().Count() == layout.Good.Count + layout.Poison.Count;

    private static (string, int, long) Key(TopicPartitionOffset offset) => (offset.Topic, offset.Partition.Value, offset.Offset.Value);

    private static void WaitFor(Func<bool> condition, string what) => Wait.Until(condition, what, Deadline);
}
