using Confluent.Kafka;
using KafkaProtobuf.Hosting.Handling;

namespace KafkaProtobuf.Hosting.Scheduling;

/// <summary>
/// A record as the scheduler sees it: where it was read, which sequence it joins (its key's hash), whether it needs
/// its handler (a poison record only needs the loop), and what its handler made of it. The consumer's own record type
/// derives from it; the scheduler's tests use one of their own.
/// </summary>
internal abstract class ScheduledWork
{
    public string Topic { get; private set; } = string.Empty;

    public Partition Partition { get; private set; }

    public Offset Offset { get; private set; }

    /// <summary>Per-key order: the hash of the key's bytes (the consume step's <c>KeyHash</c>); partition order ignores it.</summary>
    public uint KeyHash { get; private set; }

    /// <summary>
    /// False for a record that cannot be deserialized, or whose handler already failed for good before its dead letter
    /// could be written (it comes with that <see cref="Result"/>): the loop concludes it in its turn, no handler runs.
    /// </summary>
    public bool NeedsHandler { get; private set; }

    /// <summary>What the handler made of it; written by whoever ran the handler before it is handed back to the loop.</summary>
    public HandlerResult Result { get; internal set; }

    /// <summary>Whether the loop has more to do than store its offset; such a record holds its sequence until the loop concluded it.</summary>
    public bool NeedsLoop => !NeedsHandler || Result.Outcome != HandlerOutcome.Handled;

    public TopicPartitionOffset Position => new(Topic, Partition, Offset);

    /// <summary>What it counts against the read-ahead budget (<see cref="ReadAhead"/>) while the scheduler keeps it; set when it is retained.</summary>
    public long HeldBytes { get; set; }

    /// <summary>Where its partition is read again from when its conclusion moved the consumer back (a batch: the record whose dead letter failed).</summary>
    public virtual TopicPartitionOffset ReadAgainFrom => Position;

    /// <summary>Set by the scheduler when it takes the record (loop thread), before any worker sees it.</summary>
    internal RecordSequence? Sequence { get; set; }

    /// <summary>The lane's <see cref="PartitionLane.Generation"/> when the record was taken (loop thread).</summary>
    internal int Generation { get; set; }

    /// <summary>Loop thread only: handed back, so it may be concluded once every earlier record of its partition is.</summary>
    internal bool Handled { get; set; }

    /// <summary>Places the record (a reused one included) before it is offered to the scheduler.</summary>
    protected void Place(string topic, Partition partition, Offset offset, uint keyHash, bool needsHandler)
    {
        Topic = topic;
        Partition = partition;
        Offset = offset;
        KeyHash = keyHash;
        NeedsHandler = needsHandler;
        Result = default;
        HeldBytes = 0;
        Sequence = null;
        Handled = false;
    }
}
