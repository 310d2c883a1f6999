using System;
using System.Collections.Generic;
using Confluent.Kafka;

namespace KafkaProtobuf.Hosting.Scheduling;

/// <summary>
/// The scheduler's lanes by partition (by topic and number: a record's TopicPartition is a new object each time it is
/// read), made on a partition's first work and removed when the partition is let go. Loop thread only.
/// </summary>
internal sealed class PartitionLanes(int sequencesPerPartition)
{
    private readonly Dictionary<(string Topic, int Partition), PartitionLane> _lanes = [];
    private PartitionLane? _last; // records come in runs of one partition: most lookups end here

    /// <summary>The partition's lane, made now if it has none.</summary>
    public PartitionLane Of(string topic, Partition partition)
    {
        if (_last is { } last && last.Partition.Partition == partition && string.Equals(
            last.Partition.Topic, topic, StringComparison.Ordinal))
        {
            return last;
        }

        if (!_lanes.TryGetValue((topic, partition.Value), out PartitionLane? lane))
        {
            lane = new PartitionLane(new TopicPartition(topic, partition), sequencesPerPartition);
            _lanes.Add((topic, partition.Value), lane);
        }

        _last = lane;
        return lane;
    }

    /// <summary>The lanes these partitions have (a partition without work has none).</summary>
    public List<PartitionLane> Of(IEnumerable<TopicPartition> partitions)
    {
        var lanes = new List<PartitionLane>();
        foreach (TopicPartition partition in partitions)
        {
            if (_lanes.TryGetValue((partition.Topic, partition.Partition.Value), out PartitionLane? lane))
            {
                lanes.Add(lane);
            }
        }

        return lanes;
    }

    /// <summary>Every lane.</summary>
    public List<PartitionLane> All() => [.. _lanes.Values];

    /// <summary>Whether the lane is still its partition's (not let go since).</summary>
    public bool IsCurrent(PartitionLane lane) =>
        _lanes.TryGetValue((lane.Partition.Topic, lane.Partition.Partition.Value), out PartitionLane? current) && current == lane;

    /// <summary>The partition was let go: its next work makes a new lane.</summary>
    public void Remove(PartitionLane lane)
    {
        _lanes.Remove((lane.Partition.Topic, lane.Partition.Partition.Value));
        if (_last == lane)
        {
            _last = null;
        }
    }
}
