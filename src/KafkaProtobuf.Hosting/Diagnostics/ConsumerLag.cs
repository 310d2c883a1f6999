using System.Collections.Generic;
using System.Threading;

namespace KafkaProtobuf.Hosting.Diagnostics;

/// <summary>
/// One consumer's latest lag measurement, per assigned partition: written by its lag meter, read by the health check
/// and the lag gauge (any thread).
/// </summary>
internal sealed class ConsumerLag(string consumer)
{
    private IReadOnlyList<PartitionLag> _latest = [];

    public string Consumer { get; } = consumer;

    /// <summary>The latest measurement (a new list each time: readers keep the one they took).</summary>
    public IReadOnlyList<PartitionLag> Latest => Volatile.Read(ref _latest);

    /// <summary>The consumer's member id in its group when last measured (empty before it joined).</summary>
    public string? MemberId { get; private set; }

    /// <summary>The partitions assigned when last measured, those without a known position too.</summary>
    public IReadOnlyList<Confluent.Kafka.TopicPartition> Assigned { get; private set; } = [];

    public void Measured(
        IReadOnlyList<PartitionLag> lag, string? memberId = null, IReadOnlyList<Confluent.Kafka.TopicPartition>? assigned = null)
    {
        MemberId = memberId;
        Assigned = assigned ?? [];
        Volatile.Write(ref _latest, lag);
    }
}
