using System;
using System.Linq;
using Confluent.Kafka;

namespace KafkaProtobuf.Tests.Support;

/// <summary>
/// librdkafka's in-process mock cluster, started by a producer configured with <c>test.mock.num.brokers</c>; it lives
/// as long as that producer. Only loopback addresses are used.
/// </summary>
public sealed class MockCluster : IDisposable
{
    private readonly IProducer<byte[], byte[]> _owner;

    public MockCluster(int brokers = 1)
    {
        var config = new ProducerConfig();
        config.Set("test.mock.num.brokers", brokers.ToString(System.Globalization.CultureInfo.InvariantCulture));
        _owner = new ProducerBuilder<byte[], byte[]>(config).Build();

        using IAdminClient admin = new DependentAdminClientBuilder(_owner.Handle).Build();
        Metadata metadata = admin.GetMetadata(TimeSpan.FromSeconds(10));
        BootstrapServers = string.Join(",", metadata.Brokers.Select(b => $"127.0.0.1:{b.Port}"));
    }

    public string BootstrapServers { get; }

    /// <summary>The partitions of a topic that exists (the mock cluster creates topics on first produce).</summary>
    public int[] Partitions(string topic)
    {
        using IAdminClient admin = new DependentAdminClientBuilder(_owner.Handle).Build();
        Metadata metadata = admin.GetMetadata(topic, TimeSpan.FromSeconds(10));
        return metadata.Topics.Single().Partitions.Select(p => p.PartitionId).ToArray();
    }

    public ProducerConfig ProducerConfig() => new()
    {
        BootstrapServers = BootstrapServers,
        Acks = Acks.All,
        EnableIdempotence = true,
    };

    public ConsumerConfig ConsumerConfig() => new()
    {
        BootstrapServers = BootstrapServers,
        GroupId = "tests-" + Guid.NewGuid().ToString("N"),
        AutoOffsetReset = AutoOffsetReset.Earliest,
        EnableAutoCommit = false,
        SessionTimeoutMs = 6000,
    };

    public void Dispose() => _owner.Dispose();
}
