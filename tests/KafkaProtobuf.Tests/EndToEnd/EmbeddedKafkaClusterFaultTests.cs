using System;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tests.Support;
using Xunit;

namespace KafkaProtobuf.Tests.EndToEnd;

/// <summary>
/// Each fault of <see cref="EmbeddedKafkaCluster"/> observed through a real client: the effect is checked, not only that the
/// call returned. Clients stay connected while faults are injected. No timing is asserted; every wait has a deadline.
/// </summary>
public sealed class EmbeddedKafkaClusterFaultTests : IDisposable
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(20);

    private readonly EmbeddedKafkaCluster _cluster = EmbeddedKafkaCluster.Start(3);

    public void Dispose() => _cluster.Dispose();

    private IAdminClient Admin() => new AdminClientBuilder(new AdminClientConfig { BootstrapServers = _cluster.BootstrapServers }).Build();

    private IProducer<Null, string> Producer(int messageTimeoutMs = 30_000)
    {
        ProducerConfig config = _cluster.CreateProducerConfig();
        config.MessageTimeoutMs = messageTimeoutMs;
        return new ProducerBuilder<Null, string>(config).Build();
    }

    /// <summary>Produces until one record is acknowledged, so a short-timeout producer is connected before a fault.</summary>
    private static async Task WarmUp(IProducer<Null, string> producer, string topic)
    {
        for (int attempt = 1; ; attempt++)
        {
            try
            {
                await producer.ProduceAsync(topic, new Message<Null, string> { Value = "warm-up" });
                return;
            }
            catch (ProduceException<Null, string>) when (attempt < 20)
            {
                // connecting took longer than the producer's short message timeout; try again
            }
        }
    }

    private static int Leader(IAdminClient admin, string topic, int partition) =>
        admin.GetMetadata(topic, Timeout).Topics.Single().Partitions.Single(p => p.PartitionId == partition).Leader;

    [Fact]
    public void BrokerIds_AreOneToBrokerCount_AsTheClusterReportsThem()
    {
        using IAdminClient admin = Admin();
        Assert.Equal([1, 2, 3], _cluster.BrokerIds);
        Assert.Equal(_cluster.BrokerIds, admin.GetMetadata(Timeout).Brokers.Select(b => b.BrokerId).Order());
    }

    [Fact]
    public async Task SetPartitionLeader_MovesLeadership_AndNoLeaderMakesThePartitionUnavailableUntilItHasOneAgain()
    {
        _cluster.CreateTopic("moved", 2);
        using IAdminClient admin = Admin();
        int other = _cluster.BrokerIds.First(b => b != Leader(admin, "moved", 1));

        _cluster.SetPartitionLeader("moved", 1, other);
        Assert.Equal(other, Leader(admin, "moved", 1));

        _cluster.SetPartitionLeader("moved", 1, EmbeddedKafkaCluster.NoLeader);
        Assert.Equal(-1, Leader(admin, "moved", 1));
        using (IProducer<Null, string> producer = Producer(messageTimeoutMs: 1_000))
        {
            ProduceException<Null, string> e = await Assert.ThrowsAsync<ProduceException<Null, string>>(() =>
                producer.ProduceAsync(new TopicPartition("moved", 1), new Message<Null, string> { Value = "x" }));
            Assert.Equal(ErrorCode.Local_MsgTimedOut, e.Error.Code);
        }

        _cluster.SetPartitionLeader("moved", 1, 2);
        Assert.Equal(2, Leader(admin, "moved", 1));
        using (IProducer<Null, string> producer = Producer())
        {
            Assert.Equal(PersistenceStatus.Persisted, (await producer.ProduceAsync(new TopicPartition("moved", 1), new Message<Null, string> { Value = "y" })).Status);
        }
    }

    [Fact]
    public async Task SetBrokerDown_RefusesConnectionsUntilUp_WhileOtherBrokersServe()
    {
        _cluster.CreateTopic("down", 1);
        using IAdminClient admin = Admin();
        int leader = Leader(admin, "down", 0);
        using IProducer<Null, string> producer = Producer(messageTimeoutMs: 1_500);
        await WarmUp(producer, "down");

        _cluster.SetBrokerDown(leader);
        _cluster.SetBrokerDown(leader); // twice is once
        ProduceException<Null, string> e = await Assert.ThrowsAsync<ProduceException<Null, string>>(() =>
            producer.ProduceAsync("down", new Message<Null, string> { Value = "while down" }));
        Assert.Equal(ErrorCode.Local_MsgTimedOut, e.Error.Code);
        Assert.Equal(_cluster.BrokerIds.Where(b => b != leader), admin.GetMetadata(Timeout).Brokers.Select(b => b.BrokerId).Order()); // the others answer

        _cluster.SetBrokerUp(leader);
        Assert.Equal(PersistenceStatus.Persisted, (await producer.ProduceAsync("down", new Message<Null, string> { Value = "after" })).Status);
    }

    [Fact]
    public void FailNextRequests_FailsExactlyThatManyRequestsOfThatApi_ThenServesAgain()
    {
        _cluster.CreateTopic("failing", 1);
        ConsumerConfig config = _cluster.CreateConsumerConfig();
        using IConsumer<Ignore, Ignore> consumer = new ConsumerBuilder<Ignore, Ignore>(config).Build();
        TopicPartitionOffset[] offsets = [new("failing", 0, 5)];
        int before = _cluster.RequestCount(KafkaApi.OffsetCommit);

        _cluster.FailNextRequests(KafkaApi.OffsetCommit, ErrorCode.GroupAuthorizationFailed, 2);
        for (int i = 0; i < 2; i++)
        {
            KafkaException e = Assert.ThrowsAny<KafkaException>(() => consumer.Commit(offsets));
            Assert.Equal(ErrorCode.GroupAuthorizationFailed, e is TopicPartitionOffsetException t ? t.Results[0].Error.Code : e.Error.Code);
        }

        consumer.Commit(offsets); // the third one passes
        Assert.Equal(5, consumer.Committed([new TopicPartition("failing", 0)], Timeout).Single().Offset.Value);
        Assert.True(_cluster.RequestCount(KafkaApi.OffsetCommit) >= before + 3);
    }

    [Fact]
    public void ClearRequestFailures_DropsTheFailuresNotYetServed()
    {
        _cluster.CreateTopic("cleared", 1);
        using IConsumer<Ignore, Ignore> consumer = new ConsumerBuilder<Ignore, Ignore>(_cluster.CreateConsumerConfig()).Build();
        _cluster.FailNextRequests(KafkaApi.OffsetCommit, ErrorCode.GroupAuthorizationFailed, 5);
        _cluster.ClearRequestFailures(KafkaApi.OffsetCommit);

        consumer.Commit([new TopicPartitionOffset("cleared", 0, 3)]);
        Assert.Equal(3, consumer.Committed([new TopicPartition("cleared", 0)], Timeout).Single().Offset.Value);
    }

    [Fact]
    public async Task FailNextRequestsOnOneBroker_WithADelay_HoldsThenFailsThatBrokersRequests()
    {
        _cluster.CreateTopic("slow-fail", 1);
        using IAdminClient admin = Admin();
        int leader = Leader(admin, "slow-fail", 0);
        using IProducer<Null, string> producer = Producer();
        await producer.ProduceAsync("slow-fail", new Message<Null, string> { Value = "warm" });
        int produced = _cluster.RequestCount(KafkaApi.Produce, leader);

        // A retriable error: the producer retries, so the record still arrives, after the failed attempt was counted.
        _cluster.FailNextRequests(leader, KafkaApi.Produce, ErrorCode.NotEnoughReplicas, 1, TimeSpan.FromMilliseconds(200));
        Assert.Equal(PersistenceStatus.Persisted, (await producer.ProduceAsync("slow-fail", new Message<Null, string> { Value = "retried" })).Status);
        Assert.True(_cluster.RequestCount(KafkaApi.Produce, leader) >= produced + 2, "the failed attempt and the retry");

        // NoError with a delay is a slow success, counted once.
        int beforeSlow = _cluster.RequestCount(KafkaApi.Produce, leader);
        _cluster.FailNextRequests(leader, KafkaApi.Produce, ErrorCode.NoError, 1, TimeSpan.FromMilliseconds(100));
        await producer.ProduceAsync("slow-fail", new Message<Null, string> { Value = "slow" });
        Assert.Equal(beforeSlow + 1, _cluster.RequestCount(KafkaApi.Produce, leader));
    }

    [Fact]
    public async Task SetBrokerRoundTripTime_SlowsTheBroker_PastAClientTimeout_AndZeroRestoresIt()
    {
        _cluster.CreateTopic("slow", 1);
        using IAdminClient admin = Admin();
        int leader = Leader(admin, "slow", 0);
        using IProducer<Null, string> producer = Producer(messageTimeoutMs: 1_000);
        await WarmUp(producer, "slow");

        _cluster.SetBrokerRoundTripTime(leader, TimeSpan.FromSeconds(3)); // longer than the 1 s message timeout
        ProduceException<Null, string> e = await Assert.ThrowsAsync<ProduceException<Null, string>>(() =>
            producer.ProduceAsync("slow", new Message<Null, string> { Value = "late" }));
        Assert.Equal(ErrorCode.Local_MsgTimedOut, e.Error.Code);

        _cluster.SetBrokerRoundTripTime(leader, TimeSpan.Zero);
        using IProducer<Null, string> fresh = Producer();
        Assert.Equal(PersistenceStatus.Persisted, (await fresh.ProduceAsync("slow", new Message<Null, string> { Value = "on time" })).Status);
    }

    [Fact]
    public void SetGroupCoordinator_MovesTheGroupsCoordinator_AndTheMembersHeartbeatsFollowIt()
    {
        _cluster.CreateTopic("coordinated", 1);
        _cluster.SetGroupInitialRebalanceDelay(TimeSpan.Zero);
        string group = "coordinated-" + Guid.NewGuid().ToString("N");
        using IConsumer<Ignore, Ignore> consumer = new ConsumerBuilder<Ignore, Ignore>(_cluster.CreateConsumerConfig(group)).Build();
        consumer.Subscribe("coordinated");
        int HeartbeatsTo(int broker) => _cluster.RequestCount(KafkaApi.Heartbeat, broker);
        PollUntil(consumer, () => _cluster.BrokerIds.Any(b => HeartbeatsTo(b) > 0), "the first heartbeat");
        int coordinator = Assert.Single(_cluster.BrokerIds, b => HeartbeatsTo(b) > 0);
        int other = _cluster.BrokerIds.First(b => b != coordinator);
        int lookups = _cluster.RequestCount(KafkaApi.FindCoordinator);

        _cluster.SetGroupCoordinator(group, other);

        // The old coordinator answers NOT_COORDINATOR; the member looks the coordinator up again and moves.
        PollUntil(consumer, () => HeartbeatsTo(other) > 0, "a heartbeat to the new coordinator");
        Assert.True(_cluster.RequestCount(KafkaApi.FindCoordinator) > lookups);
        Assert.Single(consumer.Assignment); // still a member, with its partition
    }

    private static void PollUntil(IConsumer<Ignore, Ignore> consumer, Func<bool> condition, string what) =>
        Wait.Until(condition, what, Timeout, () => consumer.Consume(TimeSpan.FromMilliseconds(50)));

    [Fact]
    public void SetTopicError_IsReportedInMetadata_UntilCleared()
    {
        _cluster.CreateTopic("erroring", 1);
        using IAdminClient admin = Admin();

        _cluster.SetTopicError("erroring", ErrorCode.LeaderNotAvailable);
        Assert.Equal(ErrorCode.LeaderNotAvailable, admin.GetMetadata("erroring", Timeout).Topics.Single().Error.Code);

        _cluster.SetTopicError("erroring", ErrorCode.NoError);
        Assert.Equal(ErrorCode.NoError, admin.GetMetadata("erroring", Timeout).Topics.Single().Error.Code);
    }

    [Fact]
    public async Task RequestCount_CountsPerApiAndBroker_AndResetStartsFromZero()
    {
        _cluster.CreateTopic("counted", 1);
        using IAdminClient admin = Admin();
        int leader = Leader(admin, "counted", 0);
        using (IProducer<Null, string> producer = Producer())
        {
            for (int i = 0; i < 3; i++)
            {
                await producer.ProduceAsync("counted", new Message<Null, string> { Value = "x" }); // one request each
            }
        }

        Assert.Equal(3, _cluster.RequestCount(KafkaApi.Produce));
        Assert.Equal(3, _cluster.RequestCount(KafkaApi.Produce, leader));
        Assert.All(_cluster.BrokerIds.Where(b => b != leader), b => Assert.Equal(0, _cluster.RequestCount(KafkaApi.Produce, b)));
        Assert.True(_cluster.RequestCount(KafkaApi.Metadata) > 0);
        Assert.Equal(0, _cluster.RequestCount(KafkaApi.JoinGroup));

        _cluster.ResetRequestCounts();
        Assert.Equal(0, _cluster.RequestCount(KafkaApi.Produce));
        Assert.Equal(0, _cluster.RequestCount(KafkaApi.Metadata));
    }

    [Fact]
    public async Task FailNextPartitionRequests_MakesAPartitionInUseUnavailable_UntilTheFailuresAreUsedUp_OtherPartitionsServe()
    {
        _cluster.CreateTopic("unavailable", 2);
        using IProducer<Null, string> producer = Producer(messageTimeoutMs: 1_000);
        await WarmUp(producer, "unavailable"); // the producer knows the leaders: SetPartitionLeader(NoLeader) would crash the mock now

        // More failures than one message timeout's worth of retries: the first record times out, partition 1 still serves.
        _cluster.FailNextPartitionRequests("unavailable", 0, KafkaApi.Produce, ErrorCode.LeaderNotAvailable, 50);
        ProduceException<Null, string> e = await Assert.ThrowsAsync<ProduceException<Null, string>>(() =>
            producer.ProduceAsync(new TopicPartition("unavailable", 0), new Message<Null, string> { Value = "timed out" }));
        Assert.Equal(ErrorCode.Local_MsgTimedOut, e.Error.Code);
        Assert.Equal(PersistenceStatus.Persisted, (await producer.ProduceAsync(new TopicPartition("unavailable", 1), new Message<Null, string> { Value = "served" })).Status);

        // Once every failure is used up, partition 0 serves again.
        DeliveryResult<Null, string>? delivered = null;
        for (int attempt = 0; attempt < 60 && delivered is null; attempt++)
        {
            try
            {
                delivered = await producer.ProduceAsync(new TopicPartition("unavailable", 0), new Message<Null, string> { Value = "back" });
            }
            catch (ProduceException<Null, string> again) when (again.Error.Code == ErrorCode.Local_MsgTimedOut)
            {
                // still failures left
            }
        }

        Assert.NotNull(delivered);
        Assert.Equal(PersistenceStatus.Persisted, delivered!.Status);
    }

    [Fact]
    public void AKip848MembersSession_IsTheClustersToSet_SoAKilledMembersPartitionsMoveSoon()
    {
        // Under group.protocol=consumer the broker owns the session (45 s on a broker, about 30 s on the mock: longer
        // than this test waits, which it fails without the setting); with 2 s set on the cluster, a member killed
        // without leaving is removed and its partition goes to the other.
        _cluster.SetGroupInitialRebalanceDelay(TimeSpan.Zero);
        _cluster.SetConsumerGroupSession(TimeSpan.FromSeconds(2), TimeSpan.FromMilliseconds(200));
        _cluster.CreateTopic("sessions", 2);
        string group = "kip848-" + Guid.NewGuid().ToString("N");
        ConsumerConfig Config() => _cluster.CreateConsumerConfig(group).Use(RebalanceProtocol.Consumer);
        int secondOwns = 0;
        using IConsumer<Ignore, Ignore> second = new ConsumerBuilder<Ignore, Ignore>(Config())
            .SetPartitionsAssignedHandler((_, partitions) => Interlocked.Add(ref secondOwns, partitions.Count))
            .SetPartitionsRevokedHandler((_, partitions) => Interlocked.Add(ref secondOwns, -partitions.Count))
            .Build();
        IConsumer<Ignore, Ignore> killed = new ConsumerBuilder<Ignore, Ignore>(Config()).Build();
        killed.Subscribe("sessions");
        Wait.Until(() => { killed.Consume(TimeSpan.FromMilliseconds(50)); return killed.Assignment.Count == 2; }, "the first member to own both partitions", TimeSpan.FromSeconds(30));

        second.Subscribe("sessions");
        Wait.Until(() => { second.Consume(TimeSpan.FromMilliseconds(50)); killed.Consume(TimeSpan.FromMilliseconds(50)); return Volatile.Read(ref secondOwns) == 1; }, "the two members to share the partitions", TimeSpan.FromSeconds(30));
        killed.Dispose(); // destroyed without closing: no leave, no more heartbeats
        Wait.Until(() => { second.Consume(TimeSpan.FromMilliseconds(50)); return Volatile.Read(ref secondOwns) == 2; }, "the killed member's partition to move", TimeSpan.FromSeconds(15));
        second.Close();
    }

    [Fact]
    public void InvalidFaults_AreRejectedWithAClearException()
    {
        _cluster.CreateTopic("known", 2);
        ArgumentOutOfRangeException broker = Assert.Throws<ArgumentOutOfRangeException>(() => _cluster.SetBrokerDown(4));
        Assert.Contains("brokers are 1 to 3", broker.Message, StringComparison.Ordinal);
        Assert.Throws<ArgumentOutOfRangeException>(() => _cluster.SetBrokerUp(0));
        Assert.Throws<ArgumentOutOfRangeException>(() => _cluster.SetBrokerRoundTripTime(1, TimeSpan.FromMilliseconds(-1)));
        Assert.Throws<ArgumentOutOfRangeException>(() => _cluster.SetPartitionLeader("known", 0, 9));
        Assert.Throws<ArgumentOutOfRangeException>(() => _cluster.SetGroupCoordinator("g", -1));
        Assert.Throws<ArgumentException>(() => _cluster.SetGroupCoordinator(string.Empty, 1));
        Assert.Throws<ArgumentOutOfRangeException>(() => _cluster.SetConsumerGroupSession(TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(1)));
        Assert.Throws<ArgumentOutOfRangeException>(() => _cluster.SetConsumerGroupSession(TimeSpan.Zero, TimeSpan.Zero));
        Assert.Throws<ArgumentOutOfRangeException>(() => _cluster.SetConsumerGroupSession(TimeSpan.FromSeconds(1), TimeSpan.FromMilliseconds(-5)));

        ArgumentException topic = Assert.Throws<ArgumentException>(() => _cluster.SetPartitionLeader("unknown", 0, 1));
        Assert.Contains("No topic 'unknown'", topic.Message, StringComparison.Ordinal);
        ArgumentException partition = Assert.Throws<ArgumentException>(() => _cluster.SetPartitionLeader("known", 2, 1));
        Assert.Contains("No partition 2 in 'known', which has 2", partition.Message, StringComparison.Ordinal);
        Assert.Throws<ArgumentException>(() => _cluster.SetTopicError("unknown", ErrorCode.LeaderNotAvailable));

        Assert.Throws<ArgumentOutOfRangeException>(() => _cluster.FailNextRequests(KafkaApi.Produce, ErrorCode.NoError, 1));
        Assert.Throws<ArgumentOutOfRangeException>(() => _cluster.FailNextRequests(KafkaApi.Produce, (ErrorCode)12345, 1));
        Assert.Throws<ArgumentOutOfRangeException>(() => _cluster.FailNextRequests((KafkaApi)999, ErrorCode.NotCoordinatorForGroup, 1));
        Assert.Throws<ArgumentOutOfRangeException>(() => _cluster.FailNextRequests(KafkaApi.Produce, ErrorCode.NotCoordinatorForGroup, 0));
        Assert.Throws<ArgumentOutOfRangeException>(() => _cluster.FailNextRequests(5, KafkaApi.Produce, ErrorCode.NoError, 1, TimeSpan.Zero));
        Assert.Throws<ArgumentOutOfRangeException>(() => _cluster.FailNextRequests(1, KafkaApi.Produce, ErrorCode.NoError, 1, TimeSpan.FromDays(-1)));
        Assert.Throws<ArgumentOutOfRangeException>(() => _cluster.FailNextPartitionRequests("known", 0, KafkaApi.OffsetCommit, ErrorCode.LeaderNotAvailable, 1));
        Assert.Throws<ArgumentOutOfRangeException>(() => _cluster.FailNextPartitionRequests("known", 0, KafkaApi.Fetch, ErrorCode.NoError, 1));
        Assert.Throws<ArgumentOutOfRangeException>(() => _cluster.FailNextPartitionRequests("known", 0, KafkaApi.Fetch, ErrorCode.LeaderNotAvailable, 0));
        Assert.Throws<ArgumentException>(() => _cluster.FailNextPartitionRequests("known", 2, KafkaApi.Produce, ErrorCode.LeaderNotAvailable, 1));
        Assert.Throws<ArgumentException>(() => _cluster.FailNextPartitionRequests("unknown", 0, KafkaApi.Produce, ErrorCode.LeaderNotAvailable, 1));

        // Rejected faults changed nothing: the topic the unknown names would have created does not exist.
        using IAdminClient admin = Admin();
        Assert.DoesNotContain(admin.GetMetadata(Timeout).Topics, t => t.Topic == "unknown");
    }

    [Fact]
    public async Task TopicsClientsCreated_AreKnownToo()
    {
        using (IProducer<Null, string> producer = Producer())
        {
            await producer.ProduceAsync("created-by-a-client", new Message<Null, string> { Value = "x" });
        }

        _cluster.SetPartitionLeader("created-by-a-client", 3, 2); // the mock creates 4 partitions for such topics
        Assert.Throws<ArgumentException>(() => _cluster.SetPartitionLeader("created-by-a-client", 4, 2));
    }

    [Fact]
    public void EveryFault_AfterDispose_ThrowsObjectDisposed()
    {
        var cluster = EmbeddedKafkaCluster.Start(1);
        cluster.CreateTopic("t", 1);
        cluster.Dispose();

        Assert.Throws<ObjectDisposedException>(() => cluster.SetBrokerDown(1));
        Assert.Throws<ObjectDisposedException>(() => cluster.SetBrokerUp(1));
        Assert.Throws<ObjectDisposedException>(() => cluster.SetBrokerRoundTripTime(1, TimeSpan.Zero));
        Assert.Throws<ObjectDisposedException>(() => cluster.SetPartitionLeader("t", 0, 1));
        Assert.Throws<ObjectDisposedException>(() => cluster.SetGroupCoordinator("g", 1));
        Assert.Throws<ObjectDisposedException>(() => cluster.FailNextRequests(KafkaApi.Fetch, ErrorCode.NotLeaderForPartition, 1));
        Assert.Throws<ObjectDisposedException>(() => cluster.FailNextRequests(1, KafkaApi.Fetch, ErrorCode.NotLeaderForPartition, 1, TimeSpan.Zero));
        Assert.Throws<ObjectDisposedException>(() => cluster.ClearRequestFailures(KafkaApi.Fetch));
        Assert.Throws<ObjectDisposedException>(() => cluster.FailNextPartitionRequests("t", 0, KafkaApi.Produce, ErrorCode.LeaderNotAvailable, 1));
        Assert.Throws<ObjectDisposedException>(() => cluster.SetTopicError("t", ErrorCode.NoError));
        Assert.Throws<ObjectDisposedException>(() => cluster.RequestCount(KafkaApi.Fetch));
        Assert.Throws<ObjectDisposedException>(() => cluster.ResetRequestCounts());
        Assert.Throws<ObjectDisposedException>(() => cluster.SetGroupInitialRebalanceDelay(TimeSpan.Zero));
    }
}
