using System.Collections.Generic;

namespace KafkaProtobuf.Hosting.Scheduling;

/// <summary>
/// Records of one partition that are handled one after another: all of them, or in per-key mode those whose keys fall
/// in one group. At most one of its records is in a handler at a time. Every field is guarded by the
/// <see cref="HandlerWorkers{TRecord}"/> gate: the loop puts records in, workers take them out.
/// </summary>
internal sealed class RecordSequence(PartitionLane lane)
{
    public PartitionLane Lane { get; } = lane;

    /// <summary>Records waiting for the handler, in the partition's order.</summary>
    public Queue<ScheduledWork> Waiting { get; } = new();

    public SequenceState State { get; set; }
}

/// <summary>Where a <see cref="RecordSequence"/> is.</summary>
internal enum SequenceState
{
    /// <summary>Nothing to hand to the handler (or its lane is closed).</summary>
    Idle,

    /// <summary>In the workers' ready queue: its next record waits for a free handler slot.</summary>
    Ready,

    /// <summary>One of its records is in a handler.</summary>
    Running,

    /// <summary>Its last record needs the loop (a dead letter, a stop): nothing starts until the loop concluded it.</summary>
    Held,
}
