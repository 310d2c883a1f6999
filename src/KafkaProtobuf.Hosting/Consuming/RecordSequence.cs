using System.Collections.Generic;

namespace KafkaProtobuf.Hosting;

/// <summary>
/// Records of one partition that must be handled one after another: all of them, or in per-key mode those whose keys
/// fall in one group. One worker at a time takes them to the handler. Guarded by its lane's lock.
/// </summary>
internal sealed class RecordSequence<TKey, TValue>(PartitionLane<TKey, TValue> lane)
{
    public PartitionLane<TKey, TValue> Lane { get; } = lane;

    /// <summary>Records waiting for the handler.</summary>
    public Queue<LaneItem<TKey, TValue>> Waiting { get; } = new();

    /// <summary>A worker is taking records from <see cref="Waiting"/>.</summary>
    public bool Running { get; set; }

    /// <summary>A record of this sequence needs the loop (a dead letter, a stop): no worker starts until the loop decided.</summary>
    public bool HeldForLoop { get; set; }
}
