using System.Collections.Generic;

namespace KafkaProtobuf.Redrive;

/// <summary>One dead-letter partition: where reading is, the end it stops at, and the offsets still being written.</summary>
internal sealed class PartitionProgress(long next, long end)
{
    public long End { get; } = end;

    public long Next { get; private set; } = next;

    public long Committed { get; set; } = next;

    public SortedSet<long> Pending { get; } = new();

    public bool Done { get; private set; } = next >= end;

    /// <summary>The offset to commit: past everything read and acknowledged, up to the first write not yet acknowledged.</summary>
    public long Committable => Pending.Count == 0 ? Next : Pending.Min;

    public void Consumed(long offset)
    {
        Next = offset + 1;
        Done |= Next >= End;
    }

    public void ReachedEnd() => Done = true;
}
