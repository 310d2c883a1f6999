using System.Collections.Generic;
using Confluent.Kafka;

namespace KafkaProtobuf.Hosting.Diagnostics;

/// <summary>
/// Partitions for a log line, written as <see cref="PositionText"/> writes them, and only if the line is written; none
/// (an incremental rebalance that adds or takes nothing from this member) as such.
/// </summary>
internal readonly struct PartitionList(IEnumerable<TopicPartition> partitions)
{
    public override string ToString() => PositionText.Of(partitions) is { Length: > 0 } list
        ? list
        : "none (an incremental rebalance changed nothing here)";
}
