using System;
using System.Diagnostics;
using System.Globalization;
using Confluent.Kafka;

namespace KafkaProtobuf.Hosting.Diagnostics;

/// <summary>
/// OpenTelemetry's messaging semantic conventions (metrics, still marked development) for one consumer:
/// <c>messaging.process.duration</c> and <c>messaging.client.consumed.messages</c> with <c>messaging.system=kafka</c>,
/// <c>messaging.operation.name=process</c>, the consumer group, the topic and partition, and <c>error.type</c> on a
/// failure, the attribute names the spans use. Partition ids are cached as text, so a measurement allocates nothing.
/// </summary>
internal sealed class MessagingAttributes(string? group)
{
    public const string ProcessDuration = "messaging.process.duration";
    public const string ConsumedMessages = "messaging.client.consumed.messages";

    private static readonly string[] PartitionIds = Array.ConvertAll(new int[64], _ => string.Empty);

    static MessagingAttributes()
    {
        for (int i = 0; i < PartitionIds.Length; i++)
        {
            PartitionIds[i] = i.ToString(CultureInfo.InvariantCulture);
        }
    }

    public TagList Of(TopicPartition? partition, Exception? failure)
    {
        var tags = new TagList
        {
            { "messaging.system", "kafka" },
            { "messaging.operation.name", "process" },
        };
        if (group is not null)
        {
            tags.Add("messaging.consumer.group.name", group);
        }

        if (partition is not null)
        {
            tags.Add("messaging.destination.name", partition.Topic);
            int id = partition.Partition.Value;
            tags.Add(
                "messaging.destination.partition.id",
                id >= 0 && id < PartitionIds.Length ? PartitionIds[id] : id.ToString(CultureInfo.InvariantCulture));
        }

        if (failure is not null)
        {
            tags.Add("error.type", failure.GetType().FullName);
        }

        return tags;
    }
}
