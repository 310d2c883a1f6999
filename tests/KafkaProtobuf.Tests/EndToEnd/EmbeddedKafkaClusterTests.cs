using System;
using System.Linq;
using Confluent.Kafka;
using KafkaProtobuf.Testing;
using Xunit;

namespace KafkaProtobuf.Tests.EndToEnd;

public class EmbeddedKafkaClusterTests
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(10);

    [Fact]
    public void Start_ListensOnLoopbackOnlyWithOneAddressPerBroker()
    {
        using var cluster = EmbeddedKafkaCluster.Start(3);
        string[] brokers = cluster.BootstrapServers.Split(',');

        Assert.Equal(3, cluster.BrokerCount);
        Assert.Equal(3, brokers.Length);
        Assert.All(brokers, b => Assert.StartsWith("127.0.0.1:", b, StringComparison.Ordinal));

        using IAdminClient admin = new AdminClientBuilder(new AdminClientConfig { BootstrapServers = cluster.BootstrapServers }).Build();
        Assert.Equal(3, admin.GetMetadata(Timeout).Brokers.Count);
    }

    [Fact]
    public void CreateTopic_HasExactlyTheRequestedPartitions()
    {
        using var cluster = EmbeddedKafkaCluster.Start(1);
        cluster.CreateTopic("seven", 7);
        cluster.CreateTopic("one", 1);

        using IAdminClient admin = new AdminClientBuilder(new AdminClientConfig { BootstrapServers = cluster.BootstrapServers }).Build();
        Assert.Equal(7, admin.GetMetadata("seven", Timeout).Topics.Single().Partitions.Count);
        Assert.Single(admin.GetMetadata("one", Timeout).Topics.Single().Partitions);
    }

    [Fact]
    public void CreateTopic_Twice_IsAKafkaError()
    {
        using var cluster = EmbeddedKafkaCluster.Start(1);
        cluster.CreateTopic("twice", 2);
        KafkaException e = Assert.Throws<KafkaException>(() => cluster.CreateTopic("twice", 2));
        Assert.Equal(ErrorCode.TopicAlreadyExists, e.Error.Code);
    }

    [Fact]
    public void InvalidArguments_AreRejected()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => EmbeddedKafkaCluster.Start(0));
        using var cluster = EmbeddedKafkaCluster.Start(1);
        Assert.Throws<ArgumentOutOfRangeException>(() => cluster.CreateTopic("t", 0));
        Assert.Throws<ArgumentException>(() => cluster.CreateTopic(string.Empty, 1));
    }

    [Fact]
    public void ClientConfigs_PointAtThisClusterWithTheSettingsThatLoseNothing()
    {
        using var cluster = EmbeddedKafkaCluster.Start(1);

        ProducerConfig producer = cluster.CreateProducerConfig();
        Assert.Equal(cluster.BootstrapServers, producer.BootstrapServers);
        Assert.Equal(Acks.All, producer.Acks);
        Assert.True(producer.EnableIdempotence);

        ConsumerConfig first = cluster.CreateConsumerConfig();
        ConsumerConfig second = cluster.CreateConsumerConfig();
        Assert.Equal(cluster.BootstrapServers, first.BootstrapServers);
        Assert.NotEqual(first.GroupId, second.GroupId);
        Assert.Equal(AutoOffsetReset.Earliest, first.AutoOffsetReset);
        Assert.False(first.EnableAutoCommit);
        Assert.Equal("shared", cluster.CreateConsumerConfig("shared").GroupId);

        // The same settings serve a real cluster named by address.
        Assert.Equal("127.0.0.1:9092", EmbeddedKafkaCluster.RecommendedProducerConfig("127.0.0.1:9092").BootstrapServers);
        Assert.Equal(first.SessionTimeoutMs, EmbeddedKafkaCluster.RecommendedConsumerConfig("127.0.0.1:9092", "g").SessionTimeoutMs);
    }

    [Fact]
    public void SeveralClustersInOneProcess_AreIndependent()
    {
        using var first = EmbeddedKafkaCluster.Start(1);
        using var second = EmbeddedKafkaCluster.Start(2);
        first.CreateTopic("shared-name", 2);
        second.CreateTopic("shared-name", 5); // no clash: each cluster has its own topics

        Assert.Empty(first.BootstrapServers.Split(',').Intersect(second.BootstrapServers.Split(',')));
        Assert.Equal(1, RoundTrip(first, "shared-name"));
        Assert.Equal(1, RoundTrip(second, "shared-name"));
    }

    [Fact]
    public void Dispose_IsIdempotent_AndTheClusterIsGoneAfterwards()
    {
        var cluster = EmbeddedKafkaCluster.Start(1);
        cluster.CreateTopic("t", 1);
        cluster.Dispose();
        cluster.Dispose();

        Assert.Throws<ObjectDisposedException>(() => cluster.CreateTopic("u", 1));
    }

    private static int RoundTrip(EmbeddedKafkaCluster cluster, string topic)
    {
        using (IProducer<Null, string> producer = new ProducerBuilder<Null, string>(cluster.CreateProducerConfig()).Build())
        {
            producer.Produce(new TopicPartition(topic, 0), new Message<Null, string> { Value = cluster.BootstrapServers });
            Assert.Equal(0, producer.Flush(Timeout));
        }

        using IConsumer<Ignore, string> consumer = new ConsumerBuilder<Ignore, string>(cluster.CreateConsumerConfig()).Build();
        consumer.Assign(new TopicPartitionOffset(topic, 0, Offset.Beginning));
        ConsumeResult<Ignore, string>? result = consumer.Consume(Timeout);
        Assert.NotNull(result);
        Assert.Equal(cluster.BootstrapServers, result.Message.Value); // this cluster's record, not the other's
        return 1;
    }
}
