namespace KafkaProtobuf.Redrive;

/// <summary>A dead-letter partition's first offset and the offset past its last record, as a window read them.</summary>
public sealed class DeadLetterPartitionRange
{
    internal DeadLetterPartitionRange(int partition, long start, long end)
    {
        Partition = partition;
        Start = start;
        End = end;
    }

    /// <summary>The partition.</summary>
    public int Partition { get; }

    /// <summary>Its first offset (the low watermark).</summary>
    public long Start { get; }

    /// <summary>The offset past its last record (the high watermark).</summary>
    public long End { get; }
}
