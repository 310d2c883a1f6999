using System.Collections.Generic;
using Confluent.Kafka;

namespace KafkaProtobuf.Hosting;

/// <summary>
/// One partition in partition-parallel mode: its records taken and not yet concluded, in the partition's order, and
/// the sequences that hand them to the handler (one, or in per-key mode one per group of keys). Handlers may finish
/// out of order across sequences; the loop concludes records in the partition's order, so an offset is never stored
/// past an unfinished record. The sequences' fields are guarded by the lane's lock; the rest is the loop thread's.
/// </summary>
internal sealed class PartitionLane<TKey, TValue>(TopicPartition partition, int sequences)
{
    private readonly RecordSequence<TKey, TValue>?[] _sequences = new RecordSequence<TKey, TValue>?[sequences];

    public TopicPartition Partition { get; } = partition;

    /// <summary>Loop thread only: records taken and not yet concluded, in the partition's order.</summary>
    public Queue<LaneItem<TKey, TValue>> InOrder { get; } = new();

    /// <summary>
    /// Bumped (under the lock) when the partition goes back to an earlier record: what was handed out before belongs
    /// to the old reading, and its result is dropped when it comes back.
    /// </summary>
    public int Generation { get; set; }

    /// <summary>The partition is being let go: workers start nothing more (under the lock).</summary>
    public bool Closing { get; set; }

    /// <summary>Loop thread only: fetching paused because <see cref="InOrder"/> is full.</summary>
    public bool PausedFull { get; set; }

    /// <summary>Loop thread only: fetching paused until then (a <see cref="System.Diagnostics.Stopwatch"/> timestamp), after an unavailable schema or a failed dead letter.</summary>
    public long? BackOffUntil { get; set; }

    /// <summary>Loop thread only: fetching is paused, for a full lane or a back-off.</summary>
    public bool Paused => PausedFull || BackOffUntil is not null;

    /// <summary>Loop thread only: where the partition resumes after its back-off.</summary>
    public TopicPartitionOffset? ReadAgainFrom { get; set; }

    /// <summary>The sequences made so far (a key group's on its first record).</summary>
    public IEnumerable<RecordSequence<TKey, TValue>> Sequences
    {
        get
        {
            foreach (RecordSequence<TKey, TValue>? sequence in _sequences)
            {
                if (sequence is not null)
                {
                    yield return sequence;
                }
            }
        }
    }

    /// <summary>The sequence of a key's hash (loop thread).</summary>
    public RecordSequence<TKey, TValue> SequenceOf(uint keyHash)
    {
        int index = (int)(keyHash % (uint)_sequences.Length);
        return _sequences[index] ??= new RecordSequence<TKey, TValue>(this);
    }
}
