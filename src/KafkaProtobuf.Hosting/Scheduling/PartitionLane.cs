using System.Collections.Generic;
using Confluent.Kafka;

namespace KafkaProtobuf.Hosting.Scheduling;

/// <summary>
/// One partition in the scheduler: its work taken and not yet concluded, in the partition's order, and its sequences
/// (one, or in per-key mode one per group of keys). The loop thread owns everything here but <see cref="LettingGo"/>
/// and the sequences, which the workers' gate guards.
/// </summary>
internal sealed class PartitionLane(TopicPartition partition, int sequences)
{
    private readonly WorkSequence?[] _sequences = new WorkSequence?[sequences];

    public TopicPartition Partition { get; } = partition;

    /// <summary>Work taken and not yet concluded, in the partition's order.</summary>
    public Queue<ScheduledWork> InOrder { get; } = new();

    /// <summary>
    /// Bumped when the partition goes back to an earlier record: what was handed out before belongs to the old reading,
    /// and is dropped when it comes back.
    /// </summary>
    public int Generation { get; set; }

    /// <summary>Under the workers' gate: the partition is being let go, and no handler starts on its work.</summary>
    public bool LettingGo { get; set; }

    /// <summary>The sequences made so far (a key group's on its first record).</summary>
    public IEnumerable<WorkSequence> Sequences
    {
        get
        {
            foreach (WorkSequence? sequence in _sequences)
            {
                if (sequence is not null)
                {
                    yield return sequence;
                }
            }
        }
    }

    /// <summary>The sequence of a key's hash (loop thread).</summary>
    public WorkSequence SequenceOf(uint keyHash) => _sequences[(int)(keyHash % (uint)_sequences.Length)] ??= new WorkSequence(this);
}
