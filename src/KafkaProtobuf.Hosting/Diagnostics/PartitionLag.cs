namespace KafkaProtobuf.Hosting.Diagnostics;

/// <summary>
/// How many records of one assigned partition are not yet handled: its end, as last fetched, past the last offset
/// stored.
/// </summary>
internal readonly struct PartitionLag(string topic, int partition, long records)
{
    public string Topic { get; } = topic;

    public int Partition { get; } = partition;

    public long Records { get; } = records;
}
