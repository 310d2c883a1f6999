using System.Collections.Generic;
using Confluent.Kafka;

namespace KafkaProtobuf.Hosting.Loops;

/// <summary>A way of taking records from the Kafka client to their handler and on to their conclusion, run on the loop thread.</summary>
internal interface IConsumeLoop
{
    /// <summary>Consumes, handles and concludes until shutdown or failure, then lets what it holds finish.</summary>
    void Run();

    /// <summary>
    /// Partitions taken away, on the loop thread inside a consume: let go of what is held of them (records, pauses, copies
    /// not written). False: a conclusion stopped the consumer.
    /// </summary>
    /// <param name="partitions">The partitions.</param>
    bool Revoke(IReadOnlyList<TopicPartition> partitions);
}
