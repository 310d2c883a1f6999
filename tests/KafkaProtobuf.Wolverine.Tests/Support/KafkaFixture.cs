using System;
using KafkaProtobuf.Testing;
using Xunit;

namespace KafkaProtobuf.Wolverine.Tests.Support;

/// <summary>One embedded cluster for the assembly; each test has topics of its own.</summary>
public sealed class KafkaFixture : IDisposable
{
    public EmbeddedKafkaCluster Cluster { get; } = EmbeddedKafkaCluster.Start();

    /// <summary>A topic no other test uses, created with one partition (so a test can read it in order).</summary>
    public string NewTopic(string name)
    {
        string topic = name + "-" + Guid.NewGuid().ToString("N")[..8];
        Cluster.CreateTopic(topic, 1);
        return topic;
    }

    public void Dispose() => Cluster.Dispose();
}

[CollectionDefinition(Name)]
public sealed class KafkaTests : ICollectionFixture<KafkaFixture>
{
    public const string Name = "kafka";
}
