using Confluent.Kafka;
using KafkaProtobuf.Hosting.Handling;

namespace KafkaProtobuf.Hosting.Scheduling;

/// <summary>
/// Work as the scheduler sees it (a record, or a batch): where it was read, which sequence it joins (its key's hash),
/// whether it needs its handler (a poison record only needs the loop), and what its handler made of it. It knows how to
/// keep itself past the call that offered it and how to let go when it will not be concluded; the scheduler calls
/// nothing else of it, and nothing of whoever offered it. The consumer's records and batches derive from it; the
/// scheduler's tests use a work of their own.
/// </summary>
internal abstract class ScheduledWork
{
    public string Topic { get; private set; } = string.Empty;

    public Partition Partition { get; private set; }

    public Offset Offset { get; private set; }

    /// <summary>Per-key order: the hash of the key's bytes (the consumer's <c>KeyHash</c>); partition order ignores it.</summary>
    public uint KeyHash { get; private set; }

    /// <summary>
    /// False for a record that cannot be deserialized, or whose handler already failed for good before its copy could
    /// be written (it comes with that <see cref="Result"/>): it is concluded in its turn, no handler runs.
    /// </summary>
    public bool NeedsHandler { get; private set; }

    /// <summary>What the handler made of it; written by whoever ran the handler before it is handed back to the loop.</summary>
    public HandlerResult Result { get; internal set; }

    /// <summary>Whether its conclusion does more than store its offset; such work holds its sequence until concluded.</summary>
    public bool NeedsLoop => !NeedsHandler || Result.Outcome != HandlerOutcome.Handled;

    public TopicPartitionOffset Position => new(Topic, Partition, Offset);

    /// <summary>What it counts against the read-ahead budget while the scheduler keeps it (set by <see cref="Keep"/>).</summary>
    public long ReadAheadBytes { get; protected set; }

    /// <summary>
    /// Where its partition is read again from when its conclusion moved the consumer back (a batch: the record whose
    /// copy failed).
    /// </summary>
    public virtual TopicPartitionOffset ReadAgainFrom => Position;

    /// <summary>Set by the scheduler when it takes the work (loop thread), before any worker sees it.</summary>
    internal WorkSequence? Sequence { get; set; }

    /// <summary>The lane's <see cref="PartitionLane.Generation"/> when the work was taken (loop thread).</summary>
    internal int Generation { get; set; }

    /// <summary>
    /// Loop thread only: its handler is done and it was handed back; it is concluded once every earlier work of its
    /// partition is.
    /// </summary>
    internal bool Done { get; set; }

    /// <summary>
    /// The scheduler keeps the work past the call that offered it (it waits, or its handler awaits): it stops borrowing
    /// the consumer's buffers (takes its own copy of its bytes) and sets <see cref="ReadAheadBytes"/>. Loop thread.
    /// </summary>
    public abstract void Keep();

    /// <summary>
    /// The work will not be concluded (its partition was taken away, or is read again from an earlier record): it lets go
    /// of what it holds (its span, its bytes). Loop thread.
    /// </summary>
    public abstract void Release();

    /// <summary>Places the work (a reused one included) before it is offered to the scheduler.</summary>
    protected void Place(string topic, Partition partition, Offset offset, uint keyHash, bool needsHandler)
    {
        Topic = topic;
        Partition = partition;
        Offset = offset;
        KeyHash = keyHash;
        NeedsHandler = needsHandler;
        Result = default;
        ReadAheadBytes = 0;
        Sequence = null;
        Done = false;
    }
}
