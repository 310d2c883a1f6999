using System.Collections.Generic;
using System.Diagnostics;
using Confluent.Kafka;

namespace KafkaProtobuf.Hosting;

/// <summary>
/// One partition's records in partition-parallel mode, in order: the loop adds them, one worker at a time takes them
/// to the handler, and hands back those the loop must conclude. Guarded by its own lock, except the fields only the
/// loop thread touches.
/// </summary>
internal sealed class PartitionLane<TKey, TValue>(TopicPartition partition)
{
    public TopicPartition Partition { get; } = partition;

    /// <summary>Records waiting for the handler (under the lock).</summary>
    public Queue<LaneItem<TKey, TValue>> Waiting { get; } = new();

    /// <summary>A worker is taking records from <see cref="Waiting"/> (under the lock).</summary>
    public bool Running { get; set; }

    /// <summary>The record at the head needs the loop (a dead letter, a stop): no worker starts until it decided (under the lock).</summary>
    public bool HeldForLoop { get; set; }

    /// <summary>The partition is being let go: workers start nothing more (under the lock).</summary>
    public bool Closing { get; set; }

    /// <summary>Loop thread only: fetching paused because <see cref="Waiting"/> is full.</summary>
    public bool PausedFull { get; set; }

    /// <summary>Fetching paused until then (a <see cref="System.Diagnostics.Stopwatch"/> timestamp), after an unavailable schema or a failed dead letter (under the lock).</summary>
    public long? BackOffUntil { get; set; }

    /// <summary>Where the partition resumes after its back-off (under the lock).</summary>
    public TopicPartitionOffset? ReadAgainFrom { get; set; }

}

/// <summary>A record in a lane: good (with its bytes, for a dead letter) or poison, and what the handler made of it.</summary>
internal sealed class LaneItem<TKey, TValue>
{
    public LaneItem(PartitionLane<TKey, TValue> lane, ConsumeResult<TKey, TValue>? record, ConsumeException? poison, byte[]? key, byte[]? value)
    {
        Lane = lane;
        Record = record;
        Poison = poison;
        Key = key;
        Value = value;
    }

    public PartitionLane<TKey, TValue> Lane { get; }

    public ConsumeResult<TKey, TValue>? Record { get; }

    public ConsumeException? Poison { get; }

    public byte[]? Key { get; }

    public byte[]? Value { get; }

    public HandlerResult Result { get; set; }

    public Activity? Activity { get; set; }

    public TopicPartitionOffset Position => Record?.TopicPartitionOffset ?? Poison!.ConsumerRecord.TopicPartitionOffset;
}
