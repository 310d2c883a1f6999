using System.Collections.Generic;
using Confluent.Kafka;

namespace KafkaProtobuf.Hosting.Loops;

/// <summary>A way of taking records from the consume step to their handler and on to their conclusion, run on the loop thread.</summary>
internal interface IConsumeLoop
{
    /// <summary>The most kept records (or batches) have counted at once against the read-ahead budget; 0 where nothing is kept.</summary>
    long MostHeldBytes { get; }

    /// <summary>Consumes, handles and concludes until shutdown or failure, then lets what it holds finish (unless abandoned).</summary>
    void Run();

    /// <summary>Partitions taken away, on the loop thread inside a consume: let go of their records. False: a conclusion stopped the consumer.</summary>
    /// <param name="partitions">The partitions.</param>
    bool Revoke(IReadOnlyList<TopicPartition> partitions);
}
