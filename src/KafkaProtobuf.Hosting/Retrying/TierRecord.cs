using System;
using Confluent.Kafka;

namespace KafkaProtobuf.Hosting.Retrying;

/// <summary>
/// A record of one of the consumer's retry tiers, as one reading of its hops says (<see cref="RetryTiers.Read"/>):
/// where it was first read (null: nothing believed says, and it is where it is) and how long until it is due.
/// </summary>
internal readonly struct TierRecord(TopicPartitionOffset? origin, TimeSpan wait)
{
    /// <summary>Where its believed hops say it was first read; null for a record of no tier, or one whose hops are not believed.</summary>
    public TopicPartitionOffset? Origin { get; } = origin;

    /// <summary>How long until it is due: zero when it is (or nothing believed says otherwise).</summary>
    public TimeSpan Wait { get; } = wait;

    public bool NotYetDue => Wait > TimeSpan.Zero;
}
