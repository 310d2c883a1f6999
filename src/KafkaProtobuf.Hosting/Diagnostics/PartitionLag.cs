namespace KafkaProtobuf.Hosting.Diagnostics;

/// <summary>
/// How many records of one assigned partition are not yet handled: its end, as last fetched, past the last offset
/// stored (its position).
/// </summary>
internal readonly struct PartitionLag(string topic, int partition, long records, long position = -1, long end = -1)
{
    public string Topic { get; } = topic;

    public int Partition { get; } = partition;

    public long Records { get; } = records;

    /// <summary>The offset the lag counts from: past the last offset stored, or the first record consumed.</summary>
    public long Position { get; } = position;

    /// <summary>The partition's end as last fetched.</summary>
    public long End { get; } = end;
}
