using System;

namespace KafkaProtobuf.Hosting;

/// <summary>One partition a hosted consumer holds, as last measured (about once a second).</summary>
public sealed class PartitionSnapshot
{
    internal PartitionSnapshot(
        string topic,
        int partition,
        long? position,
        long? end,
        long? lag,
        PartitionPauses pauses,
        DateTimeOffset? resumesAt,
        string? waitingFor)
    {
        Topic = topic;
        Partition = partition;
        Position = position;
        End = end;
        Lag = lag;
        Pauses = pauses;
        ResumesAt = resumesAt;
        WaitingFor = waitingFor;
    }

    /// <summary>The topic.</summary>
    public string Topic { get; }

    /// <summary>The partition number.</summary>
    public int Partition { get; }

    /// <summary>
    /// The offset of the next record to conclude: past the last offset stored, or the first record consumed, or the
    /// group's committed offset; <see langword="null"/> while none is known (nothing consumed or committed yet).
    /// </summary>
    public long? Position { get; }

    /// <summary>The partition's end (high watermark) as the consumer last fetched it; <see langword="null"/> while unknown.</summary>
    public long? End { get; }

    /// <summary>
    /// Records not yet handled: <see cref="End"/> past <see cref="Position"/>; <see langword="null"/> while either is
    /// unknown (never 0 for "unknown": that would look healthy).
    /// </summary>
    public long? Lag { get; }

    /// <summary>What holds the partition paused, if anything.</summary>
    public PartitionPauses Pauses { get; }

    /// <summary>When a timed pause (a schema outage, a retry not due, a copy not written) ends and its record is read again.</summary>
    public DateTimeOffset? ResumesAt { get; }

    /// <summary>What the partition waits for and why (e.g. a writer's schema, with the registry's error), when it waits.</summary>
    public string? WaitingFor { get; }
}
