using System;
using Confluent.Kafka;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
using Shop.V1;

namespace KafkaProtobuf.Tests.Docs.Snippets;

/// <summary>KafkaProtobuf.Testing as the docs show it (see ConsumingSnippets). Compiled, not run.</summary>
internal static class TestingSnippets
{
    internal static void EmbeddedCluster()
    {
        #region embedded-cluster
        using var cluster = EmbeddedKafkaCluster.Start(3);       // brokers on 127.0.0.1, in this process
        cluster.CreateTopic("orders", partitions: 6);
        using var producer = new ProducerBuilder<string, OrderPlaced>(cluster.CreateProducerConfig())
            .SetProtobufValueSerializer(SchemaIdentifier.FromId(1)).Build();
        using var consumer = new ConsumerBuilder<string, OrderPlaced>(cluster.CreateConsumerConfig())
            .SetProtobufValueDeserializer().Build();
        #endregion
    }

    internal static void Faults(EmbeddedKafkaCluster cluster, string groupId)
    {
        #region faults
        cluster.SetBrokerDown(2);                                          // connections refused until SetBrokerUp(2)
        cluster.SetPartitionLeader("orders", 3, 1);                        // leadership moves; the epoch goes up
        cluster.FailNextPartitionRequests("orders.dlq", 0, KafkaApi.Produce, ErrorCode.LeaderNotAvailable, 30); // unavailable a while
        cluster.FailNextRequests(KafkaApi.OffsetCommit, ErrorCode.RebalanceInProgress, 3);
        cluster.FailNextRequests(1, KafkaApi.Fetch, ErrorCode.NoError, 5, TimeSpan.FromSeconds(2)); // broker 1 answers slowly
        cluster.SetBrokerRoundTripTime(3, TimeSpan.FromMilliseconds(500));
        cluster.SetGroupCoordinator(groupId, 2);
        cluster.SetTopicError("orders.dlq", ErrorCode.LeaderNotAvailable);
        int joins = cluster.RequestCount(KafkaApi.JoinGroup);              // per API, optionally per broker
        #endregion
        GC.KeepAlive(joins);
    }

    internal static void Registry()
    {
        #region in-process-registry
        using var registry = InProcessSchemaRegistry.Start();             // http://127.0.0.1:<port>
        using var client = new RegistryClient(registry.Url);              // or Confluent's CachedSchemaRegistryClient
        registry.FailNextRequests(2, 503);
        registry.AddedLatency = TimeSpan.FromSeconds(3);
        registry.Stop();
        registry.StartAgain();
        int asked = registry.RequestCount("/schemas/ids/1");
        #endregion
        GC.KeepAlive(asked);
    }
}
