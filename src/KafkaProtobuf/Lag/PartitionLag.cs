namespace KafkaProtobuf.Lag;

/// <summary>One partition of a consumer group's lag (<see cref="ConsumerGroupLag"/>).</summary>
public sealed class PartitionLag
{
    internal PartitionLag(string topic, int partition, long? committed, long end, string? owner)
    {
        Topic = topic;
        Partition = partition;
        Committed = committed;
        End = end;
        Lag = committed is long at ? System.Math.Max(0, end - at) : null;
        Owner = owner;
    }

    /// <summary>The topic.</summary>
    public string Topic { get; }

    /// <summary>The partition.</summary>
    public int Partition { get; }

    /// <summary>The group's committed offset there, or null where it has not committed.</summary>
    public long? Committed { get; }

    /// <summary>The partition's end (its high watermark) when asked.</summary>
    public long End { get; }

    /// <summary>How many records the group is behind: the end past the committed offset; null where it has not committed.</summary>
    public long? Lag { get; }

    /// <summary>The member that owns it now, as <c>client.id host</c>; null when no member does, or the brokers did not say.</summary>
    public string? Owner { get; }
}
