using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Diagnostics;

namespace KafkaProtobuf.Hosting.Health;

/// <summary>
/// One consumer's state, written by its loop, read by the health check and the operators' view (any thread); and the
/// operators' requests waiting for its loop.
/// </summary>
internal sealed class ConsumerStatus(string name)
{
    private readonly object _gate = new();
    // partition → what it waits for and why, under the gate
    private readonly Dictionary<(string Topic, int Partition), (string What, string Why)> _waiting = [];
    private int _state = (int)KafkaProtobufConsumerState.Starting;
    private int _failedAttempts;
    private int _waitingCount; // _waiting.Count, read without the gate: a record done has nothing to clear as a rule
    // partition → why it is paused and until when, under the gate; written only when that changes
    private readonly Dictionary<(string Topic, int Partition), (PartitionPauses Pauses, DateTimeOffset? Until)> _paused = [];
    private int _inHandlers;
    private LatestError? _lastError;

    public string Name { get; } = name;

    /// <summary>The consumer's group, as it started.</summary>
    public string? GroupId { get; private set; }

    /// <summary>The topics it subscribed to, as it started.</summary>
    public IReadOnlyList<string> Topics { get; private set; } = [];

    /// <summary>Its dead-letter topic, as it started.</summary>
    public string? DeadLetterTopic { get; private set; }

    /// <summary>Requests of operators, for the loop thread.</summary>
    public OperatorRequests Requests { get; } = new();

    /// <summary>Records in handlers now.</summary>
    public int RecordsInHandlers => Volatile.Read(ref _inHandlers);

    /// <summary>The latest error met, if any.</summary>
    public LatestError? LastError => Volatile.Read(ref _lastError);

    public KafkaProtobufConsumerState State => (KafkaProtobufConsumerState)Volatile.Read(ref _state);

    /// <summary>Why it failed, when <see cref="State"/> is <see cref="KafkaProtobufConsumerState.Failed"/>.</summary>
    public string? Failure { get; private set; }

    /// <summary>How many times the handler failed on the record in hand (0 when none is failing).</summary>
    public int FailedAttempts => Volatile.Read(ref _failedAttempts);

    /// <summary>
    /// Whether a partition waits: its record met an unavailable writer's schema, or its dead letter was not written,
    /// and none of its records has been done since.
    /// </summary>
    public bool IsWaiting => Volatile.Read(ref _waitingCount) != 0;

    /// <summary>
    /// What partitions wait for (e.g. "obtain a writer's schema"), each with the partitions (<c>orders [3]</c>, in
    /// order) and one reason given for it.
    /// </summary>
    public IReadOnlyList<(string What, IReadOnlyList<string> Partitions, string Why)> Waiting()
    {
        lock (_gate)
        {
            return _waiting
                .GroupBy(w => w.Value.What, System.StringComparer.Ordinal)
                .OrderBy(g => g.Key, System.StringComparer.Ordinal)
                .Select(g => (
                    g.Key,
                    (IReadOnlyList<string>)g
                        .OrderBy(w => w.Key.Topic, System.StringComparer.Ordinal)
                        .ThenBy(w => w.Key.Partition)
                        .Select(w => PositionText.Of(new TopicPartition(w.Key.Topic, w.Key.Partition)))
                        .ToList(),
                    g.Last().Value.Why))
                .ToList();
        }
    }

    public void Running() => Volatile.Write(ref _state, (int)KafkaProtobufConsumerState.Running);

    /// <summary>What the consumer reads and where its dead letters go, as it starts.</summary>
    public void Describe(string? groupId, IReadOnlyList<string> topics, string? deadLetterTopic)
    {
        GroupId = groupId;
        Topics = topics;
        DeadLetterTopic = deadLetterTopic;
    }

    /// <summary>An error met (made inert and cut here): the latest one is shown to operators.</summary>
    public void Error(string what) => Volatile.Write(ref _lastError, new LatestError(BoundedText.Cut(what, 500), DateTimeOffset.UtcNow));

    /// <summary><paramref name="records"/> records went into a handler.</summary>
    public void HandlerStarted(int records) => Interlocked.Add(ref _inHandlers, records);

    /// <summary><paramref name="records"/> records came out of a handler.</summary>
    public void HandlerEnded(int records) => Interlocked.Add(ref _inHandlers, -records);

    /// <summary>What pauses the partition now (<see cref="PartitionPauses.None"/>: it fetches), and until when.</summary>
    public void Paused(string topic, int partition, PartitionPauses pauses, DateTimeOffset? until)
    {
        lock (_gate)
        {
            if (pauses == PartitionPauses.None)
            {
                _paused.Remove((topic, partition));
            }
            else
            {
                _paused[(topic, partition)] = (pauses, until);
            }
        }
    }

    /// <summary>Whether something pauses the partition.</summary>
    public bool IsPaused(string topic, int partition) => PausesOf(topic, partition).Pauses != PartitionPauses.None;

    /// <summary>What pauses the partition, and until when.</summary>
    public (PartitionPauses Pauses, DateTimeOffset? Until) PausesOf(string topic, int partition)
    {
        lock (_gate)
        {
            return _paused.TryGetValue((topic, partition), out var paused) ? paused : (PartitionPauses.None, null);
        }
    }

    /// <summary>What the partition waits for and why, if it waits.</summary>
    public string? WaitingOf(string topic, int partition)
    {
        if (Volatile.Read(ref _waitingCount) == 0)
        {
            return null;
        }

        lock (_gate)
        {
            return _waiting.TryGetValue((topic, partition), out var waiting) ? waiting.What + ": " + waiting.Why : null;
        }
    }

    public void Stopped()
    {
        Lag.Measured([]);
        // A failure stays a failure.
        Interlocked.CompareExchange(ref _state, (int)KafkaProtobufConsumerState.Stopped, (int)KafkaProtobufConsumerState.Running);
        Interlocked.CompareExchange(ref _state, (int)KafkaProtobufConsumerState.Stopped, (int)KafkaProtobufConsumerState.Starting);
    }

    public void Failed(string reason)
    {
        Lag.Measured([]);
        Failure = reason;
        Error(reason);
        Volatile.Write(ref _state, (int)KafkaProtobufConsumerState.Failed);
    }

    public void HandlerFailed(int attempt, Exception failure)
    {
        Volatile.Write(ref _failedAttempts, attempt);
        string attemptText = attempt.ToString(System.Globalization.CultureInfo.InvariantCulture);
        Error("the handler failed (attempt " + attemptText + "): " + BoundedText.Describe(failure));
    }

    /// <summary>Records not yet handled, per assigned partition, as last measured.</summary>
    public ConsumerLag Lag { get; } = new(name);

    /// <summary>Above this lag the health check says degraded; 0 never.</summary>
    public long LagDegradedThreshold { get; set; }

    /// <summary>Above this lag the health check says unhealthy; 0 never.</summary>
    public long LagUnhealthyThreshold { get; set; }


    /// <summary>
    /// A record of the partition cannot go on (<paramref name="what"/> it needs, e.g. "obtain a writer's schema", failed
    /// for <paramref name="why"/>): the partition waits until one of its records is done.
    /// </summary>
    public void Waits(TopicPartition partition, string what, string why)
    {
        lock (_gate)
        {
            _waiting[(partition.Topic, partition.Partition.Value)] = (what, why);
            Volatile.Write(ref _waitingCount, _waiting.Count);
        }

        Error(PositionText.Of(partition) + ": could not " + what + ": " + why);
    }

    /// <summary>
    /// A record of the partition was handled or dead-lettered: nothing is failing now, and the partition no longer
    /// waits.
    /// </summary>
    /// <remarks>Read before written: every record passes here, often from several lanes, and writing an unchanged value
    /// would still take the cache line from the others.</remarks>
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
                _waiting.Remove((topic, partition.Value));
                Volatile.Write(ref _waitingCount, _waiting.Count);
            }
        }
    }

    /// <summary>The partitions were taken away: whatever held them is their new owner's to report.</summary>
    public void Revoked(IEnumerable<TopicPartition> partitions)
    {
        if (Volatile.Read(ref _waitingCount) == 0)
        {
            return;
        }

        lock (_gate)
        {
            foreach (TopicPartition partition in partitions)
            {
                _waiting.Remove((partition.Topic, partition.Partition.Value));
            }

            Volatile.Write(ref _waitingCount, _waiting.Count);
        }
    }
}

/// <summary>An error a consumer met, made inert and cut, and when.</summary>
internal sealed class LatestError(string text, DateTimeOffset at)
{
    public string Text { get; } = text;

    public DateTimeOffset At { get; } = at;
}
