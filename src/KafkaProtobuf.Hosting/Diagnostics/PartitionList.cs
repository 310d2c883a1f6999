using System.Collections.Generic;
using Confluent.Kafka;

namespace KafkaProtobuf.Hosting;

/// <summary>Partitions for a log line, written as <see cref="PositionText"/> writes them, and only if the line is written.</summary>
internal readonly struct PartitionList(IEnumerable<TopicPartition> partitions)
{
    public override string ToString() => PositionText.Of(partitions);
}
