using System;
using System.Collections.Generic;
using Confluent.Kafka;

namespace KafkaProtobuf.Hosting.Consuming;

/// <summary>
/// What the Kafka client's callbacks and the conclusions tell the consumer service, on the loop thread: partitions taken
/// away, or a failure the consumer cannot go on after. The one route a stop takes up: the client and the conclusion are
/// called down only, and tell their owner through this alone.
/// </summary>
internal interface IConsumerOwner
{
    /// <summary>Partitions were taken away (or lost): let go of what is held of them.</summary>
    void Revoked(IReadOnlyList<TopicPartition> partitions);

    /// <summary>
    /// The consumer cannot go on: stop for good, with this reason. <paramref name="outsideConsume"/>: the failure came
    /// from a callback (a fatal error), so neither a consume nor a conclusion returns it, and the loop must be told to
    /// end.
    /// </summary>
    void Failed(string reason, Exception? exception, bool outsideConsume);
}
