using System.Collections.Generic;
using Confluent.Kafka;

namespace KafkaProtobuf.Hosting.Consuming;

/// <summary>
/// Who the Kafka client's rebalance callback tells that partitions were taken away, on the loop thread inside a consume:
/// the consumer service, whose loop lets go of what it holds of them.
/// </summary>
internal interface IConsumerOwner
{
    /// <summary>
    /// Partitions were taken away (or lost): let go of what is held of them. Returns the failure a conclusion met
    /// meanwhile (the consumer stops for good), null if none: the consume under way returns it.
    /// </summary>
    ConsumerFailure? Revoked(IReadOnlyList<TopicPartition> partitions);
}
