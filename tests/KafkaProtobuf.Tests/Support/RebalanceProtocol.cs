using System;
using Confluent.Kafka;
using KafkaProtobuf.Testing;

namespace KafkaProtobuf.Tests.Support;

/// <summary>The three ways a consumer group hands out partitions, as a user's configuration picks them.</summary>
public enum RebalanceProtocol
{
    /// <summary>The classic protocol with librdkafka's default assignors (range, roundrobin): every rebalance takes every partition away first.</summary>
    ClassicEager,

    /// <summary>The classic protocol with <c>partition.assignment.strategy=cooperative-sticky</c>: only the partitions that move are taken away.</summary>
    ClassicCooperative,

    /// <summary>KIP-848's <c>group.protocol=consumer</c>: the broker assigns, incrementally, and owns the session.</summary>
    Consumer,
}

/// <summary>Settings a test applies to use a <see cref="RebalanceProtocol"/>.</summary>
public static class RebalanceProtocols
{
    /// <summary>
    /// Sets <paramref name="config"/> for <paramref name="protocol"/>; with <see cref="RebalanceProtocol.Consumer"/> it
    /// drops the session settings that protocol forbids (the cluster's own are then used: see
    /// <see cref="UseShortSessions"/>).
    /// </summary>
    public static ConsumerConfig Use(this ConsumerConfig config, RebalanceProtocol protocol)
    {
        switch (protocol)
        {
            case RebalanceProtocol.ClassicEager:
                break;
            case RebalanceProtocol.ClassicCooperative:
                config.PartitionAssignmentStrategy = PartitionAssignmentStrategy.CooperativeSticky;
                break;
            case RebalanceProtocol.Consumer:
                config.Set("group.protocol", "consumer");
                config.SessionTimeoutMs = null;
                config.HeartbeatIntervalMs = null;
                break;
            default:
                throw new ArgumentOutOfRangeException(nameof(protocol), protocol, null);
        }

        return config;
    }

    /// <summary>
    /// KIP-848 groups on <paramref name="cluster"/> get the session the classic test members set themselves (6 s,
    /// heartbeats every 500 ms) instead of the broker's own (about 30 s on the mock, 45 s on a broker): a killed member's partitions move as soon under both.
    /// </summary>
    public static EmbeddedKafkaCluster UseShortSessions(this EmbeddedKafkaCluster cluster)
    {
        cluster.SetConsumerGroupSession(TimeSpan.FromSeconds(6), TimeSpan.FromMilliseconds(500));
        return cluster;
    }

    /// <summary>The protocol a name from the environment or a test's data stands for: <c>eager</c>, <c>cooperative-sticky</c> or <c>consumer</c>.</summary>
    public static RebalanceProtocol Parse(string? name) => name switch
    {
        null or "" or "eager" or "classic" => RebalanceProtocol.ClassicEager,
        "cooperative-sticky" or "cooperative" => RebalanceProtocol.ClassicCooperative,
        "consumer" or "kip-848" => RebalanceProtocol.Consumer,
        _ => throw new ArgumentException($"unknown group protocol '{name}': eager, cooperative-sticky or consumer", nameof(name)),
    };
}
