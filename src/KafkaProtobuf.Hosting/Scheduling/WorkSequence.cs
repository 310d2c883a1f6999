using System.Collections.Generic;

namespace KafkaProtobuf.Hosting.Scheduling;

/// <summary>
/// Work of one partition handled one after another: all of it, or in per-key mode the records whose keys fall in one
/// group. At most one of its works is in a handler at a time. Every field is guarded by the
/// <see cref="SequenceGate{TWork}"/>: the loop puts work in, workers take it out.
/// </summary>
internal sealed class WorkSequence(PartitionLane lane)
{
    public PartitionLane Lane { get; } = lane;

    /// <summary>Work waiting for the handler, in the partition's order.</summary>
    public Queue<ScheduledWork> Waiting { get; } = new();

    public SequenceState State { get; set; }
}

/// <summary>Where a <see cref="WorkSequence"/> is.</summary>
internal enum SequenceState
{
    /// <summary>Nothing to hand to the handler (or its lane is closed).</summary>
    Idle,

    /// <summary>In the workers' ready queue: its next work waits for a free handler slot.</summary>
    Ready,

    /// <summary>One of its works is in a handler.</summary>
    Running,

    /// <summary>Its last work needs the loop (a dead letter, a stop): nothing starts until the loop concluded it.</summary>
    Held,
}
