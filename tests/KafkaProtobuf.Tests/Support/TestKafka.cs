using System;
using System.Linq;
using Confluent.Kafka;
using Confluent.Kafka.Admin;
using KafkaProtobuf.Testing;

namespace KafkaProtobuf.Tests.Support;

/// <summary>
/// The cluster the end-to-end tests run on: the embedded one by default, or a real cluster when the environment
/// variable <c>KAFKAPROTOBUF_BOOTSTRAP_SERVERS</c> names one (topics then get a unique prefix and are left behind).
/// </summary>
public sealed class TestKafka : IDisposable
{
    public const string BootstrapServersVariable = "KAFKAPROTOBUF_BOOTSTRAP_SERVERS";

    private readonly EmbeddedKafkaCluster? _embedded;
    private readonly string _topicPrefix;

    public TestKafka()
    {
        string? external = Environment.GetEnvironmentVariable(BootstrapServersVariable);
        if (string.IsNullOrEmpty(external))
        {
            _embedded = EmbeddedKafkaCluster.Start(3);
            BootstrapServers = _embedded.BootstrapServers;
            _topicPrefix = string.Empty;
        }
        else
        {
            BootstrapServers = external;
            _topicPrefix = "kafkaprotobuf-tests-" + Guid.NewGuid().ToString("N")[..8] + "-";
        }
    }

    public string BootstrapServers { get; }

    /// <summary>The topic's name on this cluster: unique per test run on a shared cluster.</summary>
    public string Topic(string name) => _topicPrefix + name;

    /// <summary>Creates <see cref="Topic"/>(<paramref name="name"/>) with the given partitions and returns its name.</summary>
    public string CreateTopic(string name, int partitions)
    {
        string topic = Topic(name);
        if (_embedded is not null)
        {
            _embedded.CreateTopic(topic, partitions);
            return topic;
        }

        using IAdminClient admin = new AdminClientBuilder(new AdminClientConfig { BootstrapServers = BootstrapServers }).Build();
        admin.CreateTopicsAsync([new TopicSpecification { Name = topic, NumPartitions = partitions, ReplicationFactor = -1 }])
            .Wait(TimeSpan.FromSeconds(30));
        return topic;
    }

    public ProducerConfig CreateProducerConfig() => EmbeddedKafkaCluster.RecommendedProducerConfig(BootstrapServers);

    public ConsumerConfig CreateConsumerConfig() => CreateConsumerConfig("kafkaprotobuf-tests-" + Guid.NewGuid().ToString("N"));

    public ConsumerConfig CreateConsumerConfig(string groupId) => EmbeddedKafkaCluster.RecommendedConsumerConfig(BootstrapServers, groupId);

    public void Dispose() => _embedded?.Dispose();
}
