using System.Globalization;
using Confluent.Kafka;

namespace KafkaProtobuf;

/// <summary>
/// How every message of the packages writes a record's or a partition's place: <c>orders [3] @73</c>, <c>orders [3]</c>
/// (Confluent.Kafka's own <c>ToString</c> writes <c>orders [[3]] @73</c>, and <c>@Unset [-1001]</c> for a partition
/// without an offset). Linked source, compiled into each package that writes messages.
/// </summary>
internal static class PositionText
{
    /// <summary><c>topic [partition] @offset</c>, or <c>topic [partition]</c> when the offset is not a position (unset, beginning, end...).</summary>
    public static string Of(TopicPartitionOffset position) => Of(position.Topic, position.Partition, position.Offset);

    /// <summary><c>topic [partition]</c>.</summary>
    public static string Of(TopicPartition partition) =>
        partition.Topic + " [" + partition.Partition.Value.ToString(CultureInfo.InvariantCulture) + "]";

    /// <summary>See <see cref="Of(TopicPartitionOffset)"/>.</summary>
    public static string Of(string topic, Partition partition, Offset offset) =>
        topic + " [" + partition.Value.ToString(CultureInfo.InvariantCulture) + "]"
            + (offset.IsSpecial ? string.Empty : " @" + offset.Value.ToString(CultureInfo.InvariantCulture));

    /// <summary>Partitions as a comma-separated list, each as <see cref="Of(TopicPartition)"/>.</summary>
    public static string Of(System.Collections.Generic.IEnumerable<TopicPartition> partitions) => string.Join(", ", System.Linq.Enumerable.Select(partitions, Of));
}
