using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.Hosting.Diagnostics;
using KafkaProtobuf.Hosting.Service;
using KafkaProtobuf.Tests.Support;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Vectors.Telemetry.V1;
using Xunit;
using Xunit.Abstractions;

namespace KafkaProtobuf.Tests.Hosting;

/// <summary>
/// A second member joins while the first has records in its handlers, then leaves while it has one in its own, in every
/// mode of the hosted consumer and under each rebalance protocol. Under the incremental ones (cooperative-sticky,
/// KIP-848's consumer protocol) only the partitions that move are taken from a member: the ones it keeps are never
/// revoked, their records in handlers finish and are committed, and none of their records is read twice; under the
/// classic eager protocol every partition is revoked on each rebalance (pinned too, so that the incremental cases'
/// assertions are seen to be able to fail). In every case nothing is lost. Nothing waits on time: handlers are held until
/// the rebalance they must straddle has happened (a member owns partitions), and released by events.
/// </summary>
public sealed class HostedConsumerRebalanceProtocolTests : HostedConsumerTestBase
{
    private const int Partitions = 4;
    private const int FirstRound = 20;
    private const int SecondRound = 10;
    private const long HeldOffset = 5;

    private readonly ITestOutputHelper _output;

    public HostedConsumerRebalanceProtocolTests(ITestOutputHelper output)
        : base("protocols")
    {
        _output = output;
        Cluster.UseShortSessions();
    }

    /// <summary>How the members handle records: each mode the hosted consumer has.</summary>
    public enum Mode
    {
        /// <summary>One record at a time, on the loop thread.</summary>
        Sequential,

        /// <summary>Four handlers, each partition in order.</summary>
        PartitionParallel,

        /// <summary>Four handlers, each key in order.</summary>
        PerKey,

        /// <summary>Batches of one partition's records, four at once.</summary>
        Batches,

        /// <summary>Batches of any partitions' records, one at a time on the loop thread.</summary>
        BatchesAcrossPartitions,
    }

    public static TheoryData<Mode, RebalanceProtocol> Cases()
    {
        var cases = new TheoryData<Mode, RebalanceProtocol>();
        foreach (Mode mode in Enum.GetValues<Mode>())
        {
            cases.Add(mode, RebalanceProtocol.ClassicCooperative);
            cases.Add(mode, RebalanceProtocol.Consumer);
        }

        // The eager protocol once, for contrast: every partition stops, also those kept.
        cases.Add(Mode.PartitionParallel, RebalanceProtocol.ClassicEager);

        return cases;
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task AMemberJoinsAndLeaves_WithRecordsInHandlers_OnlyMovedPartitionsStop_UnderIncrementalProtocols_AndNothingIsLost(Mode mode, RebalanceProtocol protocol)
    {
        string topic = "moving-" + mode.ToString().ToLowerInvariant();
        ProduceAcrossPartitions(topic, Partitions, FirstRound);
        bool onLoop = mode is Mode.Sequential or Mode.BatchesAcrossPartitions;
        var handled = new ConcurrentQueue<(string Member, int Partition, long Offset)>();
        using var releaseFirst = new ManualResetEventSlim();
        using var firstHolding = new ManualResetEventSlim();
        int holding = 0;
        using var first = new MemberProbe("first", Group);
        using var second = new MemberProbe("second", Group);
        using var secondStopping = new StoppingSeen("second", Group);

        // The first member holds, in each partition, the handler that has offset 5 (on the loop thread: the first such
        // handler, which holds the loop) until the second has joined; the second holds its first record of the second
        // round until it is being stopped.
        async Task Handle(string member, IReadOnlyList<ConsumeResult<string, Device>> records)
        {
            await Task.Yield();
            if (member == "first" && records.Any(r => r.Offset.Value == HeldOffset) && first.HoldOnce(records[0].Partition.Value))
            {
                if (Interlocked.Increment(ref holding) == (onLoop ? 1 : Partitions))
                {
                    firstHolding.Set();
                }

                Assert.True(releaseFirst.Wait(Deadline), "the first member's held handler was never released");
            }
            else if (member == "second" && records.Any(r => r.Offset.Value >= FirstRound) && second.HoldOnce(-1))
            {
                Wait.Until(() => secondStopping.Seen, "the second member to be stopped", Deadline);
            }

            foreach (ConsumeResult<string, Device> record in records)
            {
                handled.Enqueue((member, record.Partition.Value, record.Offset.Value));
            }
        }

        IHost firstHost = Start("first", protocol, mode, Handle);
        Assert.True(firstHolding.Wait(Deadline), "the first member never held its handlers");
        Assert.Equal(Enumerable.Range(0, Partitions), first.Owned.Order());

        // The second member joins. Held handlers on the loop thread hold the rebalance back (it needs the loop), so those
        // are let go as soon as the second has started; held handlers on workers are let go only once the second owns
        // partitions, so the rebalance happens while they run.
        IHost secondHost = Start("second", protocol, mode, Handle);
        if (!onLoop)
        {
            Wait.Until(() => second.Owned.Count > 0, "the second member to be assigned partitions", Deadline);
        }

        releaseFirst.Set();
        Wait.Until(() => Committed(topic, Partitions).All(c => c == FirstRound) && second.Owned.Count is > 0 and < Partitions, "both members to share the partitions, every record committed", Deadline);

        int[] keptByFirst = first.Owned.Order().ToArray();
        int[] movedToSecond = second.Owned.Order().ToArray();
        Assert.Equal(Enumerable.Range(0, Partitions), keptByFirst.Concat(movedToSecond).Order());
        List<int> revokedOnJoin = first.TakeRevoked();
        if (protocol == RebalanceProtocol.ClassicEager)
        {
            // Every partition stops, also the ones the first gets back; perhaps more than once (an eager join may take two generations).
            Assert.Equal(Enumerable.Range(0, Partitions), revokedOnJoin.Distinct().Order());
        }
        else
        {
            Assert.Equal(movedToSecond, revokedOnJoin.Order()); // only the moved partitions stop
            Assert.All(keptByFirst, p => Assert.Equal(
                Enumerable.Range(0, FirstRound).Select(o => ("first", (long)o)),
                InHandlingOrder(handled.Where(h => h.Partition == p).Select(h => (h.Member, h.Offset)), mode))); // each once, by the first, its held record included
        }

        // Records of the moved partitions: each handled, by the second from where the first's commits stood.
        AssertEveryRecordHandled(handled, 0, FirstRound);
        // Under the eager protocol a join may take two generations, and the second may handle records of partitions it
        // owned in the first of them only: it never handles one it was not given.
        List<int> givenToSecond = protocol == RebalanceProtocol.ClassicEager ? second.EverOwned : [.. movedToSecond];
        Assert.All(handled.Where(h => h.Member == "second"), h => Assert.Contains(h.Partition, givenToSecond));

        // The second member leaves with a record in its handler: it finishes and is committed; its partitions go back to the first.
        ProduceMore(topic, Partitions, FirstRound, SecondRound);
        Wait.Until(() => second.Holding, "the second member to hold a record of the second round", Deadline);
        await secondHost.StopAsync().WaitAsync(Deadline);
        Wait.Until(() => first.Owned.Count == Partitions && Committed(topic, Partitions).All(c => c == FirstRound + SecondRound), "the first member to take the partitions back and commit every record", Deadline);
        List<int> revokedOnLeave = first.TakeRevoked();
        await firstHost.StopAsync().WaitAsync(Deadline);
        _output.WriteLine(
            $"{protocol}, {mode}: the first kept [{string.Join(",", keptByFirst)}], the second took [{string.Join(",", movedToSecond)}]; revoked from the first "
            + $"as the second joined [{string.Join(",", revokedOnJoin)}], as it left [{string.Join(",", revokedOnLeave)}]; records handled twice: "
            + handled.GroupBy(h => (h.Partition, h.Offset)).Count(g => g.Count() > 1));

        if (protocol == RebalanceProtocol.ClassicEager)
        {
            Assert.Equal(keptByFirst, revokedOnLeave.Distinct().Order());
        }
        else
        {
            Assert.Empty(revokedOnLeave); // the first keeps its partitions and only gains the second's
            Assert.All(keptByFirst, p => Assert.Equal(
                Enumerable.Range(0, FirstRound + SecondRound).Select(o => ("first", (long)o)),
                InHandlingOrder(handled.Where(h => h.Partition == p).Select(h => (h.Member, h.Offset)), mode)));
        }

        AssertEveryRecordHandled(handled, FirstRound, FirstRound + SecondRound);
    }

    [Theory]
    [InlineData(RebalanceProtocol.ClassicCooperative)]
    [InlineData(RebalanceProtocol.Consumer)]
    public async Task AMemberJoins_WhileARecordWaitsInARetryTopic_ItIsHandledOnceNoSoonerThanDue_ByWhicheverMemberOwnsItsPartition(RebalanceProtocol protocol)
    {
        // Record 3 of partition 0 fails once and goes to the retry topic, due 6 s later; a second member joins while it
        // waits (its partition paused, the record not held). Which member ends up with the retry topic's partition is
        // the assignor's choice: either way the record is handled once, no sooner than its due time.
        ProduceAcrossPartitions("waiting", 2, 10);
        Cluster.CreateTopic("waiting.retry.1", 2);
        Cluster.CreateTopic("waiting.dlq", 1);
        TimeSpan delay = TimeSpan.FromSeconds(6);
        var calls = new ConcurrentQueue<(string Member, string Topic, int Partition, long Offset, bool Retry, DateTimeOffset? Due, DateTimeOffset At)>();
        using var first = new MemberProbe("first", Group);
        using var second = new MemberProbe("second", Group);

        Action<KafkaProtobufConsumerBuilder<string, Device>> Handler(string member) => builder => builder.Handle((record, cancellation) =>
        {
            bool retry = record.Message.Headers.TryGetLastBytes(RetryHeaderNames.Tier, out _);
            DateTimeOffset? due = record.Message.Headers.TryGetLastBytes(RetryHeaderNames.Due, out byte[] bytes)
                ? DateTimeOffset.FromUnixTimeMilliseconds(long.Parse(System.Text.Encoding.UTF8.GetString(bytes), System.Globalization.CultureInfo.InvariantCulture))
                : null;
            calls.Enqueue((member, record.Topic, record.Partition.Value, record.Offset.Value, retry, due, DateTimeOffset.UtcNow));
            return record.Partition.Value == 0 && record.Offset.Value == 3 && !retry
                ? Task.FromException(new TimeoutException("the downstream service did not answer"))
                : Task.CompletedTask;
        });

        void Options(KafkaProtobufConsumerOptions options)
        {
            options.Consumer.Use(protocol);
            if (protocol != RebalanceProtocol.Consumer)
            {
                options.Consumer.SessionTimeoutMs = 3_000; // see Start
            }

            options.MaxConcurrentHandlers = 2;
            options.HandlerFailures.MaxAttempts = 1; // straight to the retry topic
            options.RetryTopics.Delays.Add(delay);
        }

        IHost firstHost = StartHost("first", "waiting", Handler("first"), Options);
        Wait.Until(() => first.Deliveries.Any(r => r.Topic == "waiting.retry.1"), "the first member to read the record waiting in the retry topic", Deadline);
        IHost secondHost = StartHost("second", "waiting", Handler("second"), Options);
        Wait.Until(() => second.Owned.Count > 0, "the second member to be assigned partitions", Deadline);
        bool joinedBeforeDue = !calls.Any(c => c.Retry); // for the report only: on a slow machine the record may be due before the rebalance ends
        Wait.Until(() => calls.Any(c => c.Retry) && Committed("waiting", 2).All(c => c == 10), "the retried record handled and every record committed", Deadline);
        List<(string Topic, int Partition)> revoked = first.TakeRevokedPartitions();
        (string Topic, int Partition)[] movedToSecond = second.OwnedPartitions.Order().ToArray();
        await secondHost.StopAsync().WaitAsync(Deadline);
        await firstHost.StopAsync().WaitAsync(Deadline);

        var retried = calls.Where(c => c.Retry).ToList();
        _output.WriteLine($"{protocol}: the second member took {string.Join(", ", movedToSecond)} of the four partitions; "
            + $"the retried record was handled by the {retried.Single().Member} member, {(retried.Single().At - retried.Single().Due!.Value).TotalMilliseconds:0} ms after due; "
            + $"the second member joined {(joinedBeforeDue ? "before" : "after")} it was due");

        Assert.Single(retried); // once, though its partition may have moved while it waited
        Assert.Equal(("waiting", 0, 3L), (retried[0].Topic, retried[0].Partition, retried[0].Offset)); // seen as its original
        Assert.True(retried[0].At >= retried[0].Due, $"handled at {retried[0].At:O}, before its due time {retried[0].Due:O}");
        Assert.Equal(movedToSecond, revoked.Order()); // only what moved was taken from the first member
        var main = calls.Where(c => !c.Retry).Select(c => (c.Partition, c.Offset)).ToHashSet();
        Assert.All(Enumerable.Range(0, 2).SelectMany(p => Enumerable.Range(0, 10).Select(o => (p, (long)o))), r => Assert.Contains(r, main));
    }

    /// <summary>A kept partition's records as handled: in partition order, in the order they were handed over; per key (distinct keys here), in any.</summary>
    private static IEnumerable<(string Member, long Offset)> InHandlingOrder(IEnumerable<(string Member, long Offset)> records, Mode mode) =>
        mode == Mode.PerKey ? records.Order() : records;

    private static void AssertEveryRecordHandled(IEnumerable<(string Member, int Partition, long Offset)> handled, int from, int to)
    {
        var seen = handled.Select(h => (h.Partition, h.Offset)).ToHashSet();
        var missing = Enumerable.Range(0, Partitions).SelectMany(p => Enumerable.Range(from, to - from).Select(o => (p, (long)o))).Where(r => !seen.Contains(r)).ToList();
        Assert.True(missing.Count == 0, "records never handled: " + string.Join(", ", missing.Take(10)));
    }

    private IHost Start(string name, RebalanceProtocol protocol, Mode mode, Func<string, IReadOnlyList<ConsumeResult<string, Device>>, Task> handle) =>
        StartHost(
            name,
            "moving-" + mode.ToString().ToLowerInvariant(),
            builder =>
            {
                if (mode is Mode.Batches or Mode.BatchesAcrossPartitions)
                {
                    builder.HandleBatch((batch, _) => handle(name, batch));
                }
                else
                {
                    builder.Handle((record, _) => handle(name, [record]));
                }
            },
            options =>
            {
                options.Consumer.Use(protocol);
                if (protocol != RebalanceProtocol.Consumer)
                {
                    // The mock gives members of a classic group the session timeout less a second to rejoin, and waits that
                    // long each rebalance: 2 s rather than 5 (heartbeats still every 500 ms).
                    options.Consumer.SessionTimeoutMs = 3_000;
                }

                options.MaxConcurrentHandlers = mode is Mode.Sequential or Mode.BatchesAcrossPartitions ? 1 : Partitions;
                options.HandlingOrder = mode == Mode.PerKey ? HandlingOrder.Key : HandlingOrder.Partition;
                options.RevokeTimeout = TimeSpan.FromMilliseconds(200); // a held handler of a moved partition is let go, not waited for
                if (mode is Mode.Batches or Mode.BatchesAcrossPartitions)
                {
                    options.Batches.MaxSize = 5;
                    options.Batches.MaxWait = TimeSpan.FromMilliseconds(50);
                    options.Batches.AcrossPartitions = mode == Mode.BatchesAcrossPartitions;
                }
            });

    /// <summary>What one member owns and had taken away, from its consumer's own callbacks; and which of its handlers have held once.</summary>
    private sealed class MemberProbe(string consumer, string group) : ConsumerEvents(consumer, group)
    {
        private readonly object _gate = new();
        private readonly HashSet<(string Topic, int Partition)> _owned = [];
        private readonly HashSet<int> _everOwned = [];
        private readonly List<(string Topic, int Partition)> _revoked = [];
        private readonly ConcurrentDictionary<int, bool> _held = new();

        public ConcurrentQueue<TopicPartitionOffset> Deliveries { get; } = new();

        /// <summary>The partitions of the test's one topic this member owns, by number.</summary>
        public List<int> Owned => OwnedPartitions.Select(p => p.Partition).ToList();

        public IReadOnlyCollection<(string Topic, int Partition)> OwnedPartitions
        {
            get
            {
                lock (_gate)
                {
                    return [.. _owned];
                }
            }
        }

        /// <summary>Every partition this member was ever assigned, by number (an eager join may take two generations, each its own assignment).</summary>
        public List<int> EverOwned
        {
            get
            {
                lock (_gate)
                {
                    return [.. _everOwned];
                }
            }
        }

        public bool Holding => !_held.IsEmpty;

        /// <summary>True the first time only, for each key: the handler that should hold.</summary>
        public bool HoldOnce(int key) => _held.TryAdd(key, true);

        /// <summary>The partitions of the test's one topic revoked (or lost) since the last call, by number.</summary>
        public List<int> TakeRevoked() => TakeRevokedPartitions().ConvertAll(p => p.Partition);

        /// <summary>The partitions revoked (or lost) since the last call.</summary>
        public List<(string Topic, int Partition)> TakeRevokedPartitions()
        {
            lock (_gate)
            {
                List<(string Topic, int Partition)> revoked = [.. _revoked];
                _revoked.Clear();
                return revoked;
            }
        }

        public override void Assigned(IReadOnlyList<TopicPartition> partitions)
        {
            lock (_gate)
            {
                foreach (TopicPartition p in partitions)
                {
                    _owned.Add((p.Topic, p.Partition.Value));
                    _everOwned.Add(p.Partition.Value);
                }
            }
        }

        public override void Revoked(IReadOnlyList<TopicPartition> partitions, bool lost)
        {
            lock (_gate)
            {
                foreach (TopicPartition p in partitions)
                {
                    _owned.Remove((p.Topic, p.Partition.Value));
                    _revoked.Add((p.Topic, p.Partition.Value));
                }
            }
        }

        public override void Delivered(TopicPartitionOffset record) => Deliveries.Enqueue(record);
    }
}
