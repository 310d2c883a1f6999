using System.Collections.Generic;
using Confluent.Kafka;

namespace KafkaProtobuf.Hosting.Scheduling;

/// <summary>
/// One partition in the scheduler: its records taken and not yet concluded, in the partition's order, its fetching
/// state, and its sequences (one, or in per-key mode one per group of keys). The loop thread owns everything here but
/// <see cref="LettingGo"/> and the sequences, which the workers' gate guards.
/// </summary>
internal sealed class PartitionLane(TopicPartition partition, int sequences)
{
    private readonly RecordSequence?[] _sequences = new RecordSequence?[sequences];

    public TopicPartition Partition { get; } = partition;

    /// <summary>Records taken and not yet concluded, in the partition's order.</summary>
    public Queue<ScheduledWork> InOrder { get; } = new();

    /// <summary>What <see cref="InOrder"/> counts against the read-ahead budget (<see cref="ScheduledWork.HeldBytes"/> summed).</summary>
    public long HeldBytes { get; set; }

    /// <summary>
    /// Bumped when the partition goes back to an earlier record: what was handed out before belongs to the old reading,
    /// and is dropped when it comes back.
    /// </summary>
    public int Generation { get; set; }

    /// <summary>Under the workers' gate: the partition is being let go, and no handler starts on its records.</summary>
    public bool LettingGo { get; set; }

    /// <summary>Fetching paused because the read-ahead budget ran out as this partition took a record.</summary>
    public bool PausedForReadAhead { get; set; }

    /// <summary>Fetching paused until then (<see cref="SchedulerClock.Now"/>), after an unavailable schema or a failed dead letter.</summary>
    public System.TimeSpan? PausedUntil { get; set; }

    /// <summary>Fetching is paused, for the read-ahead budget or a delay.</summary>
    public bool Paused => PausedForReadAhead || PausedUntil is not null;

    /// <summary>Where the partition resumes after its delay.</summary>
    public TopicPartitionOffset? ReadAgainFrom { get; set; }

    /// <summary>The sequences made so far (a key group's on its first record).</summary>
    public IEnumerable<RecordSequence> Sequences
    {
        get
        {
            foreach (RecordSequence? sequence in _sequences)
            {
                if (sequence is not null)
                {
                    yield return sequence;
                }
            }
        }
    }

    /// <summary>The sequence of a key's hash (loop thread).</summary>
    public RecordSequence SequenceOf(uint keyHash) => _sequences[(int)(keyHash % (uint)_sequences.Length)] ??= new RecordSequence(this);
}
