using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using Confluent.Kafka;

namespace KafkaProtobuf.Tests.EndToEnd.Chaos;

/// <summary>
/// One member of the chaos test's consumer group, whatever runs it (<see cref="HostedMember"/>, the hosted consumer;
/// <see cref="LoopMember"/>, the README's hand-written loop): what it was given goes to the shared
/// <see cref="DeliveryLog"/>, what it did to the lists here. It can leave as a user's service does (<see cref="Leave"/>:
/// Close commits and leaves the group) or die (<see cref="Kill"/>: no commit, no LeaveGroup; the group notices when its
/// session times out).
/// </summary>
public abstract class ChaosMember : IDisposable
{
    protected static readonly TimeSpan JoinDeadline = TimeSpan.FromSeconds(60);
    private const int LogLinesKept = 12;
    private readonly ConcurrentQueue<string> _recentLog = new();
    private readonly ConcurrentDictionary<int, long> _owned = new();
    private int _assignments;
    private int _revocations;
    private string _lastRebalance = "none";

    protected ChaosMember(string name, DeliveryLog log)
    {
        Name = name;
        Log = log;
    }

    public string Name { get; }

    /// <summary>Partitions assigned to this member so far, counted over every rebalance.</summary>
    public int Assignments => Volatile.Read(ref _assignments);

    /// <summary>Partitions taken from this member so far (revoked or lost), counted over every rebalance.</summary>
    public int Revocations => Volatile.Read(ref _revocations);

    /// <summary>
    /// For a timed-out wait's message: the partitions the member holds now, each with the group's committed offset when
    /// it was assigned, and its latest rebalance (when, and what moved). A stall on partitions shows who holds them.
    /// </summary>
    public string Ownership =>
        "owns [" + string.Join(", ", _owned.OrderBy(o => o.Key).Select(o => $"p{o.Key} from {o.Value}")) + "], last rebalance " + Volatile.Read(ref _lastRebalance);

    public ConcurrentQueue<(string Step, Error Error)> Errors { get; } = new();

    public ConcurrentQueue<(string Step, ErrorCode Code)> CommitFailures { get; } = new();

    /// <summary>Every partition's outcome in every commit the member made (auto-commit, on revoke, on close).</summary>
    public ConcurrentQueue<(string Step, TopicPartitionOffsetError Outcome)> Commits { get; } = new();

    /// <summary>Good records handled, with the sequence number their value carries (repeats included).</summary>
    public ConcurrentQueue<(TopicPartitionOffset Record, int Sequence)> Good { get; } = new();

    /// <summary>Poison records whose dead letter was written (repeats included).</summary>
    public ConcurrentQueue<TopicPartitionOffset> DeadLettered { get; } = new();

    /// <summary>Records whose dead letter failed retriably: the member went back to each and read it again.</summary>
    public ConcurrentQueue<TopicPartitionOffset> DeadLetterFailures { get; } = new();

    /// <summary>Records whose writer's schema could not be obtained: the member went back to each and read it again.</summary>
    public ConcurrentQueue<TopicPartitionOffset> SchemaUnavailable { get; } = new();

    /// <summary>
    /// librdkafka's lines saying the member did not poll within <c>max.poll.interval.ms</c> and left the group: a member
    /// whose process is healthy must never write one (only a killed member, whose loop hangs, may).
    /// </summary>
    public ConcurrentQueue<string> PollIntervalExceeded { get; } = new();

    /// <summary>librdkafka's latest log lines for this member (the last <see cref="LogLinesKept"/>), oldest first.</summary>
    public IEnumerable<string> RecentLog => _recentLog;

    /// <summary>What stopped the member on its own or escaped it, if anything: the test fails on it.</summary>
    public abstract string? Failure { get; }

    /// <summary>What the member is doing now, for a timed-out wait's message.</summary>
    public abstract string Phase { get; }

    protected DeliveryLog Log { get; }

    /// <summary>Every record the member finished with: good records handled and poison records dead-lettered (repeats included).</summary>
    public IEnumerable<TopicPartitionOffset> Handled() => Good.Select(g => g.Record).Concat(DeadLettered);

    public abstract void Start(string topic);

    /// <summary>Stops taking records, then closes the consumer: the stored offsets are committed and the member leaves the group.</summary>
    public abstract void Leave();

    /// <summary>
    /// Ends the member without closing its consumer, as a killed process does: no commit after it, no LeaveGroup; the
    /// group takes its partitions when its session (or its poll interval) runs out. The hand-written loop's consumer is
    /// destroyed; the hosted consumer's member hangs (see <see cref="HostedMember.Kill"/>).
    /// </summary>
    public abstract void Kill();

    public abstract void Dispose();

    /// <summary>Observation only: librdkafka starts each partition at the group's committed offset; asking for it here lets the log explain where the member's runs start.</summary>
    protected void OnAssigned(Func<List<TopicPartition>, TimeSpan, List<TopicPartitionOffset>> committed, List<TopicPartition> partitions)
    {
        foreach (TopicPartitionOffset offset in CommittedOffsets(committed, partitions))
        {
            Log.Assigned(Name, offset.Offset == Offset.Unset ? new TopicPartitionOffset(offset.TopicPartition, 0) : offset);
            _owned[offset.Partition.Value] = offset.Offset.Value;
        }

        Interlocked.Add(ref _assignments, partitions.Count);
        Volatile.Write(ref _lastRebalance, $"{DateTime.Now:HH:mm:ss.fff} assigned [{string.Join(", ", partitions.Select(p => "p" + p.Partition.Value))}] in '{Log.Step}'");
    }

    protected void OnRevoked(List<TopicPartitionOffset> partitions, bool lost = false)
    {
        partitions.ForEach(p => Log.Revoked(Name, p.TopicPartition));
        partitions.ForEach(p => _owned.TryRemove(p.Partition.Value, out _));
        Interlocked.Add(ref _revocations, partitions.Count);
        Volatile.Write(ref _lastRebalance, $"{DateTime.Now:HH:mm:ss.fff} {(lost ? "lost" : "revoked")} [{string.Join(", ", partitions.Select(p => "p" + p.Partition.Value))}] in '{Log.Step}'");
    }

    protected void OnError(Error error) => Errors.Enqueue((Log.Step, error));

    protected void OnCommitted(CommittedOffsets committed)
    {
        // librdkafka lists every assigned partition with the request's error, also those it had nothing to commit for
        // (offset unset): only partitions with an offset were in the request.
        foreach (TopicPartitionOffsetError result in committed.Offsets.Where(o => o.Offset.Value >= 0))
        {
            Commits.Enqueue((Log.Step, result));
            if (result.Error.IsError)
            {
                CommitFailures.Enqueue((Log.Step, result.Error.Code));
            }
        }
    }

    /// <summary>Kept for a timed-out wait's message, not printed.</summary>
    protected void Remember(string level, string facility, string message)
    {
        if (message.Contains("maximum poll interval", StringComparison.Ordinal))
        {
            PollIntervalExceeded.Enqueue($"{DateTime.UtcNow:HH:mm:ss.fff} in '{Log.Step}': {message}");
        }

        _recentLog.Enqueue($"{DateTime.UtcNow:HH:mm:ss.fff} {level} {facility}: {message}");
        while (_recentLog.Count > LogLinesKept && _recentLog.TryDequeue(out _))
        {
        }
    }

    private static List<TopicPartitionOffset> CommittedOffsets(Func<List<TopicPartition>, TimeSpan, List<TopicPartitionOffset>> committed, List<TopicPartition> partitions)
    {
        DateTime deadline = DateTime.UtcNow + JoinDeadline;
        while (true)
        {
            try
            {
                return committed(partitions, TimeSpan.FromSeconds(5));
            }
            catch (KafkaException) when (DateTime.UtcNow < deadline)
            {
                // the coordinator is down or moving: ask again
            }
        }
    }
}
