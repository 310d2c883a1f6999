using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Linq;
using System.Text;
using System.Threading;
using Confluent.Kafka;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tests.Support;
using Vectors.Telemetry.V1;
using Xunit;
using Xunit.Abstractions;
using static KafkaProtobuf.Tests.EndToEnd.DeviceRecords;

namespace KafkaProtobuf.Tests.EndToEnd.Chaos;

/// <summary>
/// The hosted consumer (or, with <c>KAFKAPROTOBUF_CHAOS_CONSUMER=loop</c>, the README's hand-written loop; some members
/// run a batch handler, see <see cref="Join"/>) under a
/// scripted schedule of broker and registry faults: 100,000 records over 6 partitions, values resolved through a Schema
/// Registry over HTTP with a new schema id every 500 records of each partition, 1% poison (every framing fault class and a bad payload,
/// in the value or the key), and a handler that fails once on one record in 500. Nothing may be lost, every poison record
/// must reach the dead-letter topic byte for byte and nothing else may, and every record read twice must be explained by
/// an offset that was not committed (<see cref="DeliveryLog.Explain"/>). The schedule comes from a seed, printed, and
/// replayed with <c>KAFKAPROTOBUF_CHAOS_SEED</c>. Nothing asserts on time: faults are lined up with consumption
/// progress, every wait has a deadline.
/// </summary>
public abstract class ChaosScenario : IDisposable
{
    public const string SeedVariable = "KAFKAPROTOBUF_CHAOS_SEED";
    public const string ConsumerVariable = "KAFKAPROTOBUF_CHAOS_CONSUMER";
    public const string ProtocolVariable = "KAFKAPROTOBUF_CHAOS_PROTOCOL";
    // Schema ids of the values: each partition has its own run of them, a new one every 500 of its records, so a member
    // that has read some partitions to the end has not met the ids still ahead in the others (with ids shared across
    // partitions, a skewed member had them all cached and the registry outage had nothing left to meet).
    private const int RecordsPerRevision = 500;
    private const int RevisionsPerPartition = (RecordCount / PartitionCount / RecordsPerRevision) + 1;
    private const int Revisions = RevisionsPerPartition * PartitionCount;
    private const int DefaultSeed = 20261123;
    private const int RecordCount = 100_000;
    private const int PartitionCount = 6;
    private const string Topic = "chaos";
    private const string DeadLetterTopic = "chaos.dlq";
    private static readonly TimeSpan Deadline = TimeSpan.FromSeconds(90);

    // The most a member fetches of one partition at a time, and the producer's largest batch (see Join): about 180 records.
    private const int FetchBytes = 8_192;

    // How long refusals of the dead-letter partition's Produce requests may go without effect before its leader is taken down.
    private static readonly TimeSpan RefusalGrace = TimeSpan.FromSeconds(15);

    private readonly ITestOutputHelper _output;
    private readonly EmbeddedKafkaCluster _cluster = StartCluster();
    private readonly InProcessSchemaRegistry _registry = InProcessSchemaRegistry.Start();
    private readonly RegistryClient _registryClient;
    private readonly DeliveryLog _log = new();
    private readonly string _group = "chaos-" + Guid.NewGuid().ToString("N");
    private readonly List<ChaosMember> _members = [];
    private readonly HashSet<ChaosMember> _killed = [];
    private readonly string _consumer;
    private readonly RebalanceProtocol _protocol;
    private ProducerConfig _deadLetterConfig = null!;
    private IProducer<byte[], byte[]>? _deadLetters;
    private int _allowance;

    protected ChaosScenario(ITestOutputHelper output, string consumer, RebalanceProtocol protocol)
    {
        _output = output;
        _consumer = consumer;
        _protocol = Environment.GetEnvironmentVariable(ProtocolVariable) is { Length: > 0 } named ? RebalanceProtocols.Parse(named) : protocol;
        // No retries: a refused connection during the outage is met at once, and the consumer reads the record again.
        _registryClient = new RegistryClient(new RegistryClientOptions { Urls = { _registry.Url }, MaxRetries = 0, RequestTimeout = TimeSpan.FromSeconds(5) });
    }

    public void Dispose()
    {
        foreach (ChaosMember member in _members)
        {
            member.Dispose();
        }

        _deadLetters?.Dispose();
        _registryClient.Dispose();
        _registry.Dispose();
        _cluster.Dispose();
        GC.SuppressFinalize(this);
    }

    private static EmbeddedKafkaCluster StartCluster()
    {
        EmbeddedKafkaCluster cluster = EmbeddedKafkaCluster.Start(3);
        cluster.SetGroupInitialRebalanceDelay(TimeSpan.Zero);
        return cluster.UseShortSessions(); // a killed KIP-848 member's partitions move as soon as a classic one's

    }

    /// <summary>Where each produced record landed: good ones with their sequence number, poison ones as written.</summary>
    private sealed class Layout
    {
        public Dictionary<TopicPartitionOffset, int> Good { get; } = [];

        public Dictionary<TopicPartitionOffset, PoisonRecord> Poison { get; } = [];

        public int Count => Good.Count + Poison.Count;
    }

    /// <summary>What one step did to the stream, for the report.</summary>
    private sealed record StepReport(
        FaultStep Step, string Detail, int DistinctBefore, int DistinctAfter, long DeliveriesBefore, long DeliveriesAfter,
        int DeadLetterFailures, int ClientErrors, int CommitFailures, TimeSpan Took);

    [Fact]
    public void HundredThousandRecordsOnePercentPoison_UnderAScriptedFaultSchedule_NothingLost_PoisonDeadLetteredByteForByte_EveryDuplicateExplained()
    {
        int seed = int.TryParse(Environment.GetEnvironmentVariable(SeedVariable), NumberStyles.Integer, CultureInfo.InvariantCulture, out int s) ? s : DefaultSeed;
        IReadOnlyList<FaultStep> schedule = FaultSchedule.Create(seed, _cluster.BrokerIds, PartitionCount);
        _output.WriteLine($"{_consumer switch { "loop" => "hand-written loop", "hosted-parallel" => "hosted consumer, partition-parallel", "hosted-per-key" => "hosted consumer, partition-parallel, per-key order", _ => "hosted consumer" }}{_consumer switch { "loop" => string.Empty, "hosted" => "; the second member: a batch handler across partitions", _ => "; members after the first: a batch handler" }}, group protocol {_protocol}, seed {seed} (replay: {SeedVariable}={seed}); schedule: " + string.Join("; ", schedule.Select(f => f.Describe())));
        var clock = Stopwatch.StartNew();

        _cluster.CreateTopic(Topic, PartitionCount);
        _cluster.CreateTopic(DeadLetterTopic, 1);
        Layout layout = Produce(RegisterRevisions());
        TimeSpan produced = clock.Elapsed;

        _deadLetterConfig = _cluster.CreateProducerConfig();
        _deadLetterConfig.MessageTimeoutMs = 1_000; // a dead letter that cannot be written fails fast and is retried

        // Consumption runs at full speed up to the end of the current step's window, then crawls, so that every fault
        // meets records in flight however fast the machine is. Duplicates are never slowed.
        var reports = new List<StepReport>();
        int Window(int step) => (int)((long)layout.Count * Math.Min(step, schedule.Count + 1) / (schedule.Count + 1));
        Volatile.Write(ref _allowance, Window(1));
        ChaosMember current = Join("first");
        for (int i = 0; i < schedule.Count; i++)
        {
            WaitFor(() => _log.Distinct >= Window(i + 1) || Failed(), $"progress to {Window(i + 1)} before '{schedule[i].Kind}'");
            ThrowIfFailed();
            reports.Add(Run(schedule[i], ref current));
            Volatile.Write(ref _allowance, Window(i + 3));
        }

        _log.Step = "recovery";
        Volatile.Write(ref _allowance, int.MaxValue);
        WaitFor(() => Covered(layout) || Failed(), () => "every record to be consumed or dead-lettered (not yet: " + Missing(layout) + ")");
        ThrowIfFailed();
        current.Leave();
        TimeSpan consumed = clock.Elapsed;

        // No good record dead-lettered (said first, with the reason each letter gives: a good record missing below is
        // most often one of these, and its letter says why).
        List<ConsumeResult<byte[], byte[]>> letters = ReadDeadLetters(_cluster.CreateConsumerConfig(), DeadLetterTopic, Deadline);
        var goodLettered = letters.Where(l => layout.Good.ContainsKey(SourceOf(l.Message.Headers))).ToList();
        Assert.True(goodLettered.Count == 0, $"seed {seed}: good records dead-lettered:\n" + string.Join("\n", goodLettered.Take(10).Select(l =>
            $"{SourceOf(l.Message.Headers)}: {Header(l, DeadLetterHeaderNames.ErrorCode)}: {Header(l, DeadLetterHeaderNames.ErrorMessage)}")));

        // Nothing lost: every good record handled, with the value written at that offset.
        var goodSeen = _members.SelectMany(m => m.Good).ToList();
        Assert.Equal(layout.Good.Keys.OrderBy(Key), goodSeen.Select(r => r.Record).Distinct().OrderBy(Key));
        Assert.All(goodSeen, r => Assert.Equal(layout.Good[r.Record], r.Sequence));

        // The handler's transient failures: each retried in place until it succeeded (so among the records above), none dead-lettered.
        var failedOnce = _members.OfType<HostedMember>().SelectMany(m => m.FailedFirst).Distinct().ToList();
        if (_consumer != "loop")
        {
            Assert.Equal(layout.Good.Values.Where(HostedMember.FailsOnce).Order(), failedOnce.Order());
        }

        // Every poison record in the dead-letter topic byte for byte, with its error code; nothing else there.
        var bySource = letters.GroupBy(l => SourceOf(l.Message.Headers)).ToDictionary(g => g.Key, g => g.ToList());
        Assert.Equal(layout.Poison.Keys.OrderBy(Key), bySource.Keys.OrderBy(Key));
        foreach ((TopicPartitionOffset source, List<ConsumeResult<byte[], byte[]>> copies) in bySource)
        {
            PoisonRecord poison = layout.Poison[source];
            Headers original = poison.ToMessage().Headers;
            Assert.All(copies, letter =>
            {
                Assert.Equal(poison.Key, letter.Message.Key);
                Assert.Equal(poison.Value, letter.Message.Value);
                Assert.Equal(
                    original.Select(h => (h.Key, Convert.ToHexString(h.GetValueBytes()))),
                    letter.Message.Headers.Take(original.Count).Select(h => (h.Key, Convert.ToHexString(h.GetValueBytes()))));
                Assert.Equal(poison.Code.ToString(), Header(letter, DeadLetterHeaderNames.ErrorCode));
            });
        }

        // A dead letter written twice is explained by a second delivery of its record or a failed attempt before.
        var attempts = _members.SelectMany(m => m.DeadLettered.Concat(m.DeadLetterFailures))
            .GroupBy(r => r).ToDictionary(g => g.Key, g => g.Count());
        Assert.All(bySource, pair => Assert.True(
            pair.Value.Count <= attempts.GetValueOrDefault(pair.Key),
            $"{pair.Value.Count} dead letters of {pair.Key} but {attempts.GetValueOrDefault(pair.Key)} attempts"));

        // At least once, never at most once: every run of offsets a member read starts where the group had committed, or
        // at a record whose dead letter failed; so every record read twice was read again because it was not committed.
        (List<DeliveryLog.Run> runs, List<string> unexplained) = _log.Explain();
        long deliveries = _log.Deliveries;
        int duplicates = (int)(deliveries - _log.Distinct);
        Assert.Equal(layout.Count, _log.Distinct);
        Assert.Equal(duplicates, runs.Sum(r => r.Duplicates));
        Assert.True(unexplained.Count == 0, $"seed {seed}: unexplained deliveries:\n" + string.Join("\n", unexplained.Take(20)));
        ThrowIfFailed();

        Report(seed, layout, reports, runs, letters.Count, duplicates, failedOnce.Count, produced, consumed - produced);
    }

    private StepReport Run(FaultStep step, ref ChaosMember current)
    {
        _log.Step = step.Kind.ToString();
        int distinct = _log.Distinct;
        long deliveries = _log.Deliveries;
        int deadLetterFailures = DeadLetterFailures();
        int errors = _members.Sum(m => m.Errors.Count);
        int commitFailures = _members.Sum(m => m.CommitFailures.Count);
        var clock = Stopwatch.StartNew();
        string detail = step.Describe();
        switch (step.Kind)
        {
            case FaultKind.BrokerDownThenUp:
                _cluster.SetBrokerDown(step.Broker);
                Hold(step.Hold);
                _cluster.SetBrokerUp(step.Broker);
                break;
            case FaultKind.LeadersMoved:
                detail = "leaders moved: " + string.Join(", ", step.Moves.Select(m => MoveLeader(m.Partition, m.Shift)));
                break;
            case FaultKind.FetchErrors:
                FailRequests(KafkaApi.Fetch, step.Error, step.Count);
                break;
            case FaultKind.OffsetCommitErrors:
                FailRequests(KafkaApi.OffsetCommit, step.Error, step.Count);
                break;
            case FaultKind.SlowBroker:
                _cluster.SetBrokerRoundTripTime(step.Broker, step.Hold);
                Hold(TimeSpan.FromSeconds(3));
                _cluster.SetBrokerRoundTripTime(step.Broker, TimeSpan.Zero);
                break;
            case FaultKind.DeadLetterLeaderUnavailable:
                detail = MakeDeadLettersFail(step, deadLetterFailures);
                break;
            case FaultKind.RegistryOutage:
                detail = RegistryOutage(step);
                break;
            case FaultKind.SecondMemberJoinsThenLeaves:
                ChaosMember first = current;
                int firstRevocations = first.Revocations;
                ChaosMember second = Join("second");
                WaitFor(() => (second.Good.Count >= 200 && first.Revocations > firstRevocations) || Failed(), "the second member to share the stream");
                int taken = first.Revocations - firstRevocations;
                int beforeLeave = first.Assignments;
                second.Leave();
                WaitFor(() => first.Assignments > beforeLeave || Failed(), "the first member to take the second's partitions back");
                int takenOnLeave = first.Revocations - firstRevocations - taken;
                detail = $"the second member joined: {taken} of the first's partitions revoked; it left: {takenOnLeave} more revoked from the first";
                if (_protocol != RebalanceProtocol.ClassicEager)
                {
                    // Incremental protocols take away only what moves: the first keeps some partitions as the second joins and all of them as it leaves.
                    Assert.True(taken < PartitionCount, $"{_protocol}: all {taken} of the first member's partitions were revoked when the second joined");
                    Assert.Equal(0, takenOnLeave);
                }

                break;
            case FaultKind.MemberKilledAndReplaced:
                _killed.Add(current);
                current.Kill();
                ChaosMember replacement = Join("replacement");
                WaitFor(() => replacement.Assignments >= PartitionCount && !replacement.Good.IsEmpty || Failed(), "the replacement to take over");
                current = replacement;
                break;
            default:
                throw new ArgumentOutOfRangeException(nameof(step), step.Kind, null);
        }

        ThrowIfFailed();
        return new StepReport(
            step, detail, distinct, _log.Distinct, deliveries, _log.Deliveries, DeadLetterFailures() - deadLetterFailures,
            _members.Sum(m => m.Errors.Count) - errors, _members.Sum(m => m.CommitFailures.Count) - commitFailures, clock.Elapsed);
    }

    /// <summary>
    /// Refuses the dead-letter partition's Produce requests until a dead letter has failed. How many refusals that takes
    /// depends on how fast the producer retries within its 1 s message timeout, so when a batch is used up without a
    /// failure (every retry fit in one attempt) the next batch is twice as long. Not SetPartitionLeader(NoLeader): the
    /// mock crashes when a client that knows the old leader produces. Refusals left over are met by later dead letters.
    /// Twice in CI the mock neither applied the refusals nor counted a request for a minute and a half while dead letters
    /// were written (the state the timeout printed: 89 dead letters written, 0 Produce requests counted); when refusals
    /// have no effect for <see cref="RefusalGrace"/>, the partition's leader is taken down instead until a dead letter
    /// fails, which makes it unavailable in the plainest way, and the report says so.
    /// </summary>
    private string MakeDeadLettersFail(FaultStep step, int failuresBefore)
    {
        _cluster.ResetRequestCounts(); // each count copies the mock's whole request log: keep it to this step's requests
        int produces = _cluster.RequestCount(KafkaApi.Produce); // the dead-letter producer is the only producer now
        int refused = 0;
        bool DeadLetterFailed() => DeadLetterFailures() > failuresBefore || Failed();
        for (int batch = step.Count; ; batch *= 2)
        {
            _cluster.FailNextPartitionRequests(DeadLetterTopic, 0, KafkaApi.Produce, step.Error, batch);
            refused += batch;
            int target = produces + refused;
            try
            {
                Wait.Until(() => DeadLetterFailed() || _cluster.RequestCount(KafkaApi.Produce) >= target, "refusals to take effect", RefusalGrace, CountingPoll);
            }
            catch (TimeoutException)
            {
                return TakeDeadLetterLeaderDown(failuresBefore, $"{refused} Produce refusals ({step.Error}) had no effect in {RefusalGrace.TotalSeconds:0} s ({State()})");
            }

            if (DeadLetterFailed())
            {
                return $"dead-letter partition's leader unavailable: {refused} Produce requests refused ({step.Error}) before a dead letter failed";
            }
        }
    }

    private string TakeDeadLetterLeaderDown(int failuresBefore, string why)
    {
        using IAdminClient admin = new AdminClientBuilder(new AdminClientConfig { BootstrapServers = _cluster.BootstrapServers }).Build();
        int leader = admin.GetMetadata(DeadLetterTopic, TimeSpan.FromSeconds(10)).Topics.Single().Partitions.Single().Leader;
        _cluster.SetBrokerDown(leader);
        try
        {
            WaitFor(() => DeadLetterFailures() > failuresBefore || Failed(), $"a dead letter to fail with its partition's leader, broker {leader}, down");
        }
        finally
        {
            _cluster.SetBrokerUp(leader);
        }

        return $"dead-letter partition's leader unavailable: {why}, so its leader, broker {leader}, was taken down until a dead letter failed";
    }

    /// <summary>
    /// Stops the registry until a record has met the outage (a schema id no member had resolved yet: each partition
    /// brings one every 500 of its records), keeps it down a while longer, and starts it again. Members must read such records again, never
    /// dead-letter or skip them.
    /// </summary>
    private string RegistryOutage(FaultStep step)
    {
        int before = _members.Sum(m => m.SchemaUnavailable.Count);
        _registry.Stop();
        try
        {
            WaitFor(() => _members.Sum(m => m.SchemaUnavailable.Count) > before || Failed(), "a record to meet the registry's outage");
            Hold(step.Hold);
        }
        finally
        {
            _registry.StartAgain();
        }

        return $"registry down until a record met the outage, then {step.Hold.TotalSeconds:0.#} s more; {_members.Sum(m => m.SchemaUnavailable.Count) - before} records read again for it";
    }

    private ChaosMember Join(string name)
    {
        ConsumerConfig config = _cluster.CreateConsumerConfig(_group).Use(_protocol);
        config.EnableAutoCommit = true;         // the README's loop: auto-commit sends the stored offsets
        config.EnableAutoOffsetStore = false;
        config.AutoCommitIntervalMs = 200;

        // A small prefetch, so that a member fetches every few seconds even while it crawls. queued.min.messages is a
        // low-water mark (of the member's whole queue), not a cap: once the queue falls below it, one Fetch brings up to
        // max.partition.fetch.bytes of every partition (1 MB by default, the rest of this topic), and no Fetch is sent
        // until the member has worked through it. Crawling at 5 ms a record, that was more than the 90 s a step waits:
        // the FetchErrors step's "3 Fetch requests" never came (seen under load: 16,964 records delivered, 0 Fetch
        // requests; librdkafka's fetch log says "not fetchable: queued.min.messages exceeded"). Small fetches of small
        // producer batches (see Produce) keep the queue within about a thousand records of the mark, and a partition
        // whose queue was full looks again after 10 ms rather than librdkafka's 1 s (fetch.queue.backoff.ms), so that
        // small fetches still keep up with a member at full speed.
        config.QueuedMinMessages = 1_000;
        config.MaxPartitionFetchBytes = FetchBytes;
        config.FetchQueueBackoffMs = 10;
        ChaosMember member;
        if (_consumer != "loop")
        {
            // Batch handlers: beside the partition-parallel member, every member after it (batches of one partition,
            // several at once: most of the stream after the kill); beside the sequential one, the second member only
            // (batches across partitions), so that the sequential record handler still meets most faults. Rebalances
            // hand partitions between record and batch handlers.
            BatchOptions? batches = name == "first" || (_consumer == "hosted" && name != "second") ? null
                : new BatchOptions { MaxSize = 50, MaxWait = TimeSpan.FromMilliseconds(50), AcrossPartitions = _consumer == "hosted" };
            member = new HostedMember(
                name, config, _registryClient, _deadLetterConfig, DeadLetterTopic, Topic, _log, Throttle, _consumer is "hosted-parallel" or "hosted-per-key" ? PartitionCount : 1,
                _consumer == "hosted-per-key" && batches is null ? HandlingOrder.Key : HandlingOrder.Partition, batches);
        }
        else
        {
            _deadLetters ??= new ProducerBuilder<byte[], byte[]>(_deadLetterConfig).Build();
            member = new LoopMember(name, config, _registryClient, _deadLetters, DeadLetterTopic, _log, Throttle);
        }

        _members.Add(member);
        member.Start(Topic);
        return member;
    }

    /// <summary>Processing time: a record past the current window costs 5 ms, so consumption waits for the schedule.</summary>
    private void Throttle(bool firstDelivery)
    {
        if (firstDelivery && _log.Distinct > Volatile.Read(ref _allowance))
        {
            Thread.Sleep(5);
        }
    }

    private string MoveLeader(int partition, int shift)
    {
        using IAdminClient admin = new AdminClientBuilder(new AdminClientConfig { BootstrapServers = _cluster.BootstrapServers }).Build();
        int leader = admin.GetMetadata(Topic, TimeSpan.FromSeconds(10)).Topics.Single().Partitions.Single(p => p.PartitionId == partition).Leader;
        IReadOnlyList<int> brokers = _cluster.BrokerIds;
        int to = brokers[(brokers.ToList().IndexOf(leader) + shift) % brokers.Count];
        _cluster.SetPartitionLeader(Topic, partition, to);
        return $"partition {partition} from broker {leader} to {to}";
    }

    /// <summary>Makes the next <paramref name="count"/> requests of <paramref name="api"/> fail and waits until clients have met them all.</summary>
    private void FailRequests(KafkaApi api, ErrorCode error, int count)
    {
        _cluster.ResetRequestCounts();
        int before = _cluster.RequestCount(api);
        _cluster.FailNextRequests(api, error, count);
        WaitFor(() => Failed() || _cluster.RequestCount(api) > before + count, $"{count} {api} requests to meet {error}", CountingPoll);
        _cluster.ClearRequestFailures(api);
    }

    /// <summary>
    /// The pause between two checks that count the mock's requests: each count copies its request log under the lock its
    /// brokers serve requests with, so checking every 10 ms would slow the cluster the test is waiting on.
    /// </summary>
    private static void CountingPoll() => Thread.Sleep(100);

    private int DeadLetterFailures() => _members.Sum(m => m.DeadLetterFailures.Count);

    /// <summary>
    /// True once a member let something escape or stopped, or a member not killed left the group for not polling: the
    /// schedule stops waiting and the test fails on it.
    /// </summary>
    private bool Failed() => _members.Any(m => m.Failure is not null || (!_killed.Contains(m) && !m.PollIntervalExceeded.IsEmpty));

    private void ThrowIfFailed()
    {
        Assert.All(_members, m => Assert.Null(m.Failure));
        // The state only when it fails: it copies the mock's request log (see CountingPoll).
        if (_members.FirstOrDefault(m => !_killed.Contains(m) && !m.PollIntervalExceeded.IsEmpty) is { } left)
        {
            Assert.Fail($"{left.Name} did not poll in time and left the group: {string.Join("; ", left.PollIntervalExceeded)}; {State()}");
        }
    }

    private bool Covered(Layout layout) => _members.SelectMany(m => m.Handled()).Distinct().Count() == layout.Count;

    /// <summary>For a timed-out wait's message: the first records no member handled nor dead-lettered, and how many there are.</summary>
    private string Missing(Layout layout)
    {
        var handled = _members.SelectMany(m => m.Handled()).Select(Key).ToHashSet();
        var missing = layout.Good.Keys.Concat(layout.Poison.Keys).Where(r => !handled.Contains(Key(r))).OrderBy(Key).ToList();
        return missing.Count + " records, from " + string.Join(", ", missing.Take(10));
    }

    /// <summary>
    /// Registers <see cref="Revisions"/> versions of the values' file (its messages, then one more per revision, so the
    /// paths of the others stay and each version may follow the last) and returns their ids: the good values are written with them in turn,
    /// so new ids keep appearing as consumption goes on.
    /// </summary>
    private List<int> RegisterRevisions()
    {
        var ids = new List<int>();
        for (int revision = 0; revision < Revisions; revision++)
        {
            FileDescriptorProto file = FileDescriptorProto.Parser.ParseFrom(TelemetryReflection.Descriptor.SerializedData);
            for (int added = 0; added <= revision; added++)
            {
                file.MessageType.Add(new DescriptorProto { Name = $"Revision{added}" }); // each revision one message more: compatible, as the registry checks
            }
            RegistrySchema registered = _registryClient.RegisterAsync(Topic + "-value", file.ToByteString().ToBase64(), "PROTOBUF", [], normalize: false)
                .WaitAsync(Deadline).GetAwaiter().GetResult();
            ids.Add(registered.Id!.Value);
        }

        Assert.Equal(Revisions, ids.Distinct().Count());
        return ids;
    }

    /// <summary>A good value framed with its revision's schema id: Device at [1], its sequence number in the id.</summary>
    private static byte[] GoodValue(int sequence, List<int> ids)
    {
        int id = ids[(sequence % PartitionCount * RevisionsPerPartition) + (sequence / PartitionCount / RecordsPerRevision)]; // records go round robin
        return [0, (byte)(id >> 24), (byte)(id >> 16), (byte)(id >> 8), (byte)id, 2, 2, .. new Device { Id = "device-" + sequence.ToString(CultureInfo.InvariantCulture) }.ToByteArray()];
    }

    private Layout Produce(List<int> ids)
    {
        var layout = new Layout();
        var errors = new List<Error>();
        ProducerConfig config = _cluster.CreateProducerConfig();
        config.BatchSize = FetchBytes; // a Fetch returns whole batches, however large: see Join
        using (IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(config).Build())
        {
            for (int i = 0; i < RecordCount; i++)
            {
                int sequence = i;
                var partition = new TopicPartition(Topic, i % PartitionCount);
                if (i % 100 == 37)
                {
                    // 1% poison: every fault class in turn, in the value or the key.
                    IReadOnlyList<PoisonRecord> classes = PoisonRecord.All(i);
                    PoisonRecord poison = classes[i / 100 % classes.Count];
                    producer.Produce(partition, poison.ToMessage(), report => Landed(report, () => layout.Poison.Add(report.TopicPartitionOffset, poison)));
                }
                else
                {
                    var message = new Message<byte[], byte[]> { Key = PoisonRecord.GoodKey("sensor-" + (i % 97)), Value = GoodValue(i, ids) };
                    producer.Produce(partition, message, report => Landed(report, () => layout.Good.Add(report.TopicPartitionOffset, sequence)));
                }
            }

            Assert.Equal(0, producer.Flush(Deadline));
        }

        Assert.Empty(errors);
        Assert.Equal(RecordCount, layout.Count);
        return layout;

        void Landed(DeliveryReport<byte[], byte[]> report, Action add)
        {
            lock (layout)
            {
                if (report.Error.IsError)
                {
                    errors.Add(report.Error);
                }
                else
                {
                    add();
                }
            }
        }
    }

    private static string Header(ConsumeResult<byte[], byte[]> letter, string name) => Encoding.UTF8.GetString(letter.Message.Headers.GetLastBytes(name));

    private static (string, int, long) Key(TopicPartitionOffset offset) => (offset.Topic, offset.Partition.Value, offset.Offset.Value);

    /// <summary>Keeps a fault in place for a while; consumption goes on meanwhile. Not an assertion on time.</summary>
    private static void Hold(TimeSpan hold) => Thread.Sleep(hold);

    /// <summary>Waits for <paramref name="condition"/>; a timeout says where the stream stood, so a failed run can be understood from its log.</summary>
    private void WaitFor(Func<bool> condition, string what, Action? poll = null) => WaitFor(condition, () => what, poll);

    private void WaitFor(Func<bool> condition, Func<string> what, Action? poll = null)
    {
        try
        {
            Wait.Until(condition, what, Deadline, poll);
        }
        catch (TimeoutException e)
        {
            throw new TimeoutException(e.Message + "; " + State(), e);
        }
    }

    private string State() =>
        $"step '{_log.Step}', distinct {_log.Distinct}, deliveries {_log.Deliveries}, allowance {Volatile.Read(ref _allowance)}, "
        + $"Produce requests {_cluster.RequestCount(KafkaApi.Produce)}, Fetch requests {_cluster.RequestCount(KafkaApi.Fetch)}, "
        + $"thread pool {ThreadPool.ThreadCount} threads, {ThreadPool.PendingWorkItemCount} work items pending; "
        + string.Join("; ", _members.Select(m =>
            $"{m.Name}: good {m.Good.Count}, dead-lettered {m.DeadLettered.Count}, dead-letter failures {m.DeadLetterFailures.Count}, "
            + $"schema unavailable {m.SchemaUnavailable.Count}, errors [{string.Join(", ", m.Errors.Select(e => e.Error.Code).Distinct())}], "
            + $"assignments {m.Assignments}, {m.Ownership}, {m.Phase}, last offsets by partition [{LastOffsets(m)}], last log lines:\n    "
            + string.Join("\n    ", m.RecentLog)));

    private static string LastOffsets(ChaosMember member) => string.Join(", ", member.Handled()
        .GroupBy(r => r.Partition.Value).OrderBy(g => g.Key).Select(g => $"p{g.Key} {g.Max(r => r.Offset.Value)}"));

    private void Report(int seed, Layout layout, List<StepReport> reports, List<DeliveryLog.Run> runs, int letters, int duplicates, int handlerFailures, TimeSpan produce, TimeSpan consume)
    {
        _output.WriteLine($"seed {seed}: {layout.Good.Count} good and {layout.Poison.Count} poison records over {PartitionCount} partitions; produced in {produce.TotalSeconds:0.0} s, consumed under faults in {consume.TotalSeconds:0.0} s");
        _output.WriteLine($"deliveries {_log.Deliveries}, distinct {_log.Distinct}, read twice {duplicates}; dead letters {letters} for {layout.Poison.Count} poison records; "
            + $"handler failures retried {handlerFailures}; records read again for an unavailable schema {_members.Sum(m => m.SchemaUnavailable.Count)}; "
            + $"client errors {_members.Sum(m => m.Errors.Count)}: "
            + string.Join(", ", _members.SelectMany(m => m.Errors).GroupBy(e => e.Error.Code).Select(g => $"{g.Key} x{g.Count()}")));
        foreach (StepReport r in reports)
        {
            int stepDuplicates = runs.Where(run => run.Step == r.Step.Kind.ToString()).Sum(run => run.Duplicates);
            _output.WriteLine(
                $"- {r.Step.Kind}: {r.Detail}. Progress {r.DistinctBefore} -> {r.DistinctAfter} ({r.DistinctAfter - r.DistinctBefore} new records, "
                + $"{r.DeliveriesAfter - r.DeliveriesBefore} deliveries) in {r.Took.TotalSeconds:0.0} s; dead-letter failures {r.DeadLetterFailures}, "
                + $"client errors {r.ClientErrors}, failed commits {r.CommitFailures}; re-reads started in this step {stepDuplicates}");
        }

        foreach (IGrouping<(string, DeliveryLog.Kind), DeliveryLog.Run> cause in runs.Where(r => r.Duplicates > 0).GroupBy(r => (r.Step, r.Cause)))
        {
            _output.WriteLine($"  re-read after {cause.Key.Item2} during '{cause.Key.Item1}': {cause.Sum(r => r.Duplicates)} records in {cause.Count()} runs "
                + $"({string.Join(", ", cause.Take(8).Select(r => $"{r.Member} p{r.Partition.Partition.Value} from {r.Start}"))}{(cause.Count() > 8 ? ", ..." : string.Empty)})");
        }

        _output.WriteLine("runs (member partition: first..last offset, cause, step, re-read): " + string.Join("; ", runs.Select(r =>
            $"{r.Member} p{r.Partition.Partition.Value}: {r.Start}..{r.End} {r.Cause} {r.Step} {r.Duplicates}")));
        var commitCodes = _members.SelectMany(m => m.CommitFailures).GroupBy(f => (f.Step, f.Code)).Select(g => $"{g.Key.Code} x{g.Count()} during {g.Key.Step}");
        _output.WriteLine("failed commits: " + string.Join("; ", commitCodes));
        foreach (ChaosMember member in _members)
        {
            foreach (var byPartition in member.Commits.GroupBy(c => c.Outcome.Partition.Value).OrderBy(g => g.Key))
            {
                _output.WriteLine($"  {member.Name} p{byPartition.Key}: " + string.Join(", ", byPartition.GroupBy(c => c.Step).Select(g =>
                    $"{g.Key}: ok {g.Count(c => !c.Outcome.Error.IsError)} up to {g.Where(c => !c.Outcome.Error.IsError).Select(c => c.Outcome.Offset.Value).DefaultIfEmpty(-1).Max()}"
                    + $" failed {string.Join("/", g.Where(c => c.Outcome.Error.IsError).GroupBy(c => c.Outcome.Error.Code).Select(e => e.Key + " x" + e.Count()))}")));
            }
        }
    }
}

/// <summary>The chaos scenarios run one after the other: each loads a 2-core machine enough on its own.</summary>
[CollectionDefinition(nameof(ChaosScenarios))]
public sealed class ChaosScenarios;

/// <summary>
/// The chaos scenario on the hosted consumer, sequential, the second member with batches across partitions, under the
/// classic protocol's eager default (or what <c>KAFKAPROTOBUF_CHAOS_CONSUMER</c> names: <c>loop</c>,
/// <c>hosted-parallel</c>, <c>hosted-per-key</c>; and <c>KAFKAPROTOBUF_CHAOS_PROTOCOL</c>: <c>eager</c>,
/// <c>cooperative-sticky</c>, <c>consumer</c>).
/// </summary>
[Collection(nameof(ChaosScenarios))]
public sealed class ChaosTests(ITestOutputHelper output) : ChaosScenario(output, Environment.GetEnvironmentVariable(ConsumerVariable) ?? "hosted", RebalanceProtocol.ClassicEager);

/// <summary>
/// The chaos scenario on the hosted consumer in partition-parallel mode (six records at once) with per-key order, where
/// one partition's records finish out of order and are still concluded in it; the members after the first run a batch
/// handler whose batches are one partition's, several at once. Under cooperative-sticky: as the second member joins and
/// leaves, only the partitions that move are revoked (asserted), the others flow on.
/// </summary>
[Collection(nameof(ChaosScenarios))]
public sealed class PartitionParallelChaosTests(ITestOutputHelper output) : ChaosScenario(output, "hosted-per-key", RebalanceProtocol.ClassicCooperative);

/// <summary>
/// The chaos scenario on the hosted consumer in partition-parallel mode with partition order, the members after the
/// first with batches of one partition, under KIP-848's consumer protocol (the broker assigns; sessions set on the
/// cluster): the kill, the second member and every fault as under the classic protocol.
/// </summary>
[Collection(nameof(ChaosScenarios))]
public sealed class ConsumerProtocolChaosTests(ITestOutputHelper output) : ChaosScenario(output, "hosted-parallel", RebalanceProtocol.Consumer);
