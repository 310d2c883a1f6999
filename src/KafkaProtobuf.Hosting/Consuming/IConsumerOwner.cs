using System;
using System.Collections.Generic;
using Confluent.Kafka;

namespace KafkaProtobuf.Hosting.Consuming;

/// <summary>
/// What the consume step tells the part that runs it (the consumer service), from inside the Kafka client's callbacks
/// on the loop thread: the consume step calls down only, and up through this alone.
/// </summary>
internal interface IConsumeStepOwner
{
    /// <summary>Partitions were taken away (or lost): let go of what is held of them.</summary>
    void Revoked(IReadOnlyList<TopicPartition> partitions);

    /// <summary>
    /// The consumer cannot go on: stop for good, with this reason. <paramref name="outsideConsume"/>: the failure came
    /// from a callback (a fatal error), so no consume returns it, and the loop must be told to end.
    /// </summary>
    void Failed(string reason, Exception? exception, bool outsideConsume);
}
