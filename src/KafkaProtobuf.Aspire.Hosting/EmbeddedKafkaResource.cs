using System;
using System.Collections.Generic;
using Aspire.Hosting.ApplicationModel;
using KafkaProtobuf.Testing;

namespace KafkaProtobuf.Aspire.Hosting;

/// <summary>
/// A Kafka resource served by <see cref="EmbeddedKafkaCluster"/> (librdkafka's mock cluster) inside the AppHost's
/// process, on loopback ports the operating system chooses. Its connection string is the bootstrap servers' host list,
/// as Aspire.Hosting.Kafka's is. Its data lives as long as the AppHost.
/// </summary>
public sealed class EmbeddedKafkaResource : Resource, IResourceWithConnectionString
{
    private readonly StartedValue _bootstrapServers;
    private readonly List<EmbeddedKafkaTopic> _topics = [];

    internal EmbeddedKafkaResource(string name, int brokerCount)
        : base(name)
    {
        BrokerCount = brokerCount;
        _bootstrapServers = new StartedValue(name, "bootstrapServers");
    }

    /// <summary>The number of brokers.</summary>
    public int BrokerCount { get; }

    /// <summary>The running cluster, for faults on purpose from the AppHost's code; null until the resource has started.</summary>
    public EmbeddedKafkaCluster? Cluster { get; private set; }

    /// <summary>The bootstrap servers' host list, once started.</summary>
    public ReferenceExpression ConnectionStringExpression => ReferenceExpression.Create($"{_bootstrapServers}");

    /// <summary>The topics created at start, with their partition counts.</summary>
    public IReadOnlyList<EmbeddedKafkaTopic> Topics => _topics.AsReadOnly();

    /// <summary>The keys the dashboard's dead-letter commands verify dead letters with and sign redrives with (<c>WithProvenanceKeys</c>); null: unchecked.</summary>
    internal KafkaProtobuf.DeadLetters.ProvenanceKeys? ProvenanceKeys { get; set; }

    internal void AddTopic(string topic, int partitions)
    {
        _topics.RemoveAll(t => t.Name == topic);
        _topics.Add(new EmbeddedKafkaTopic(topic, partitions));
    }

    internal EmbeddedKafkaCluster Start()
    {
        EmbeddedKafkaCluster cluster = EmbeddedKafkaCluster.Start(BrokerCount);
        try
        {
            foreach (EmbeddedKafkaTopic topic in _topics)
            {
                cluster.CreateTopic(topic.Name, topic.Partitions);
            }
        }
        catch
        {
            cluster.Dispose();
            throw;
        }

        Cluster = cluster;
        _bootstrapServers.Set(cluster.BootstrapServers);
        return cluster;
    }

    internal void Stop()
    {
        EmbeddedKafkaCluster? cluster = Cluster;
        Cluster = null;
        cluster?.Dispose();
    }
}
