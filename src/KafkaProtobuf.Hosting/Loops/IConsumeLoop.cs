using System.Collections.Generic;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Consuming;

namespace KafkaProtobuf.Hosting.Loops;

/// <summary>A way of taking records from the Kafka client to their handler and on to their conclusion, run on the loop thread.</summary>
internal interface IConsumeLoop
{
    /// <summary>
    /// Consumes, handles and concludes until shutdown or failure, and says why it ended: the failure that stops the
    /// consumer for good, or null at shutdown. At shutdown what it holds finishes first; after a failure it ends at
    /// once, and what it holds is not concluded (it is read again).
    /// </summary>
    ConsumerFailure? Run();

    /// <summary>
    /// Partitions taken away, on the loop thread inside a consume: let go of what is held of them (records, pauses, copies
    /// not written). Returns the failure a conclusion met meanwhile, null if none.
    /// </summary>
    /// <param name="partitions">The partitions.</param>
    ConsumerFailure? Revoke(IReadOnlyList<TopicPartition> partitions);
}
