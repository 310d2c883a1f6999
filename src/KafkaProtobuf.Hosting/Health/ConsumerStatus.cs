using System.Collections.Generic;
using System.Linq;
using System.Threading;
using Confluent.Kafka;

namespace KafkaProtobuf.Hosting;

/// <summary>One consumer's state, written by its loop, read by the health check (any thread).</summary>
internal sealed class ConsumerStatus(string name)
{
    private readonly object _gate = new();
    private readonly Dictionary<(string Topic, int Partition), string> _waitingForSchema = []; // partition → why, under the gate
    private int _state = (int)KafkaProtobufConsumerState.Starting;
    private int _failedAttempts;
    private int _waitingCount; // _waitingForSchema.Count, read without the gate: a record done has nothing to clear as a rule

    public string Name { get; } = name;

    public KafkaProtobufConsumerState State => (KafkaProtobufConsumerState)Volatile.Read(ref _state);

    /// <summary>Why it failed, when <see cref="State"/> is <see cref="KafkaProtobufConsumerState.Failed"/>.</summary>
    public string? Failure { get; private set; }

    /// <summary>How many times the handler failed on the record in hand (0 when none is failing).</summary>
    public int FailedAttempts => Volatile.Read(ref _failedAttempts);

    /// <summary>Whether a partition's record met an unavailable writer's schema and none of that partition's has been done since.</summary>
    public bool SchemaUnavailable => Volatile.Read(ref _waitingCount) != 0;

    /// <summary>The partitions held by an unavailable writer's schema (<c>orders [3]</c>), in order, and the last reason given.</summary>
    public (IReadOnlyList<string> Partitions, string? Reason) WaitingForSchema()
    {
        lock (_gate)
        {
            return (
                _waitingForSchema.Keys.OrderBy(p => p.Topic, System.StringComparer.Ordinal).ThenBy(p => p.Partition).Select(p => PositionText.Of(new TopicPartition(p.Topic, p.Partition))).ToList(),
                _waitingForSchema.Values.LastOrDefault());
        }
    }

    public void Running() => Volatile.Write(ref _state, (int)KafkaProtobufConsumerState.Running);

    public void Stopped()
    {
        // A failure stays a failure.
        Interlocked.CompareExchange(ref _state, (int)KafkaProtobufConsumerState.Stopped, (int)KafkaProtobufConsumerState.Running);
        Interlocked.CompareExchange(ref _state, (int)KafkaProtobufConsumerState.Stopped, (int)KafkaProtobufConsumerState.Starting);
    }

    public void Failed(string reason)
    {
        Failure = reason;
        Volatile.Write(ref _state, (int)KafkaProtobufConsumerState.Failed);
    }

    public void HandlerFailed(int attempt) => Volatile.Write(ref _failedAttempts, attempt);

    /// <summary>A record of the partition met an unavailable writer's schema: the partition waits until one of its records is done.</summary>
    public void SchemaWasUnavailable(TopicPartition partition, string reason)
    {
        lock (_gate)
        {
            _waitingForSchema[(partition.Topic, partition.Partition.Value)] = reason;
            Volatile.Write(ref _waitingCount, _waitingForSchema.Count);
        }
    }

    /// <summary>A record of the partition was handled or dead-lettered: nothing is failing now, and the partition no longer waits.</summary>
    /// <remarks>Read before written: every record passes here, often from several lanes, and writing an unchanged value would still take the cache line from the others.</remarks>
    public void RecordDone(string topic, Partition partition)
    {
        if (Volatile.Read(ref _failedAttempts) != 0)
        {
            Volatile.Write(ref _failedAttempts, 0);
        }

        if (Volatile.Read(ref _waitingCount) != 0)
        {
            lock (_gate)
            {
                _waitingForSchema.Remove((topic, partition.Value));
                Volatile.Write(ref _waitingCount, _waitingForSchema.Count);
            }
        }
    }

    /// <summary>The partitions were taken away: whatever held them is their new owner's to report.</summary>
    public void Released(IEnumerable<TopicPartition> partitions)
    {
        if (Volatile.Read(ref _waitingCount) == 0)
        {
            return;
        }

        lock (_gate)
        {
            foreach (TopicPartition partition in partitions)
            {
                _waitingForSchema.Remove((partition.Topic, partition.Partition.Value));
            }

            Volatile.Write(ref _waitingCount, _waitingForSchema.Count);
        }
    }
}
