using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using Confluent.Kafka;

namespace KafkaProtobuf.Tests.EndToEnd.Chaos;

/// <summary>
/// What every member of a consumer group was given, in order: its assignments (with the group's committed offset at that
/// moment), each record Consume delivered, and each seek back to a record whose dead letter failed. From it,
/// <see cref="Explain"/> proves at-least-once: within a member's run on a partition the offsets follow one another (no
/// record skipped), and every run starts either at the group's committed offset (after an assignment) or at a record
/// whose dead letter was not written (after DeadLetter's seek back), so every record read twice was read again because
/// its offset had not been committed.
/// </summary>
public sealed class DeliveryLog
{
    private readonly ConcurrentDictionary<string, ConcurrentQueue<Entry>> _members = new();
    private readonly ConcurrentDictionary<(string Topic, int Partition, long Offset), bool> _firstDeliveries = new();
    private long _sequence;
    private int _distinct;

    public enum Kind
    {
        Assigned,
        Revoked,
        Delivered,
        SeekBack,
    }

    /// <summary>One thing that happened to a member. <see cref="Step"/> is the fault schedule's step at that moment.</summary>
    public readonly record struct Entry(long Sequence, Kind Kind, TopicPartitionOffset Position, string Step);

    /// <summary>A run of consecutive offsets one member read on one partition, and what made it start where it did.</summary>
    public sealed record Run(string Member, TopicPartition Partition, long Start, long End, Kind Cause, string Step, int Duplicates);

    /// <summary>The schedule's current step, stamped on each event.</summary>
    public string Step { get; set; } = "start";

    /// <summary>How many different records have been delivered to any member.</summary>
    public int Distinct => Volatile.Read(ref _distinct);

    public long Deliveries => _members.Values.Sum(events => events.Count(e => e.Kind == Kind.Delivered));

    public void Assigned(string member, TopicPartitionOffset committed) => Add(member, Kind.Assigned, committed);

    public void Revoked(string member, TopicPartition partition) => Add(member, Kind.Revoked, new TopicPartitionOffset(partition, Offset.Unset));

    public void SeekBack(string member, TopicPartitionOffset record) => Add(member, Kind.SeekBack, record);

    /// <summary>Records a delivery; true when no member had been given this record before.</summary>
    public bool Delivered(string member, TopicPartitionOffset record)
    {
        Add(member, Kind.Delivered, record);
        if (_firstDeliveries.TryAdd((record.Topic, record.Partition.Value, record.Offset.Value), true))
        {
            Interlocked.Increment(ref _distinct);
            return true;
        }

        return false;
    }

    private void Add(string member, Kind kind, TopicPartitionOffset position) =>
        _members.GetOrAdd(member, _ => new ConcurrentQueue<Entry>())
            .Enqueue(new Entry(Interlocked.Increment(ref _sequence), kind, position, Step));

    /// <summary>
    /// Splits every member's deliveries into runs and explains each: returns the runs, and a line for anything that is
    /// not explained (a skipped offset, a run starting anywhere but the committed offset or a failed dead letter, a
    /// committed offset that moved backwards). Call once every member has stopped.
    /// </summary>
    public (List<Run> Runs, List<string> Unexplained) Explain()
    {
        var runs = new List<Run>();
        var unexplained = new List<string>();
        var earlierDeliveries = new Dictionary<(string, int, long), long>(); // record -> sequence of its first delivery
        foreach (Entry e in _members.Values.SelectMany(events => events).Where(e => e.Kind == Kind.Delivered))
        {
            var key = (e.Position.Topic, e.Position.Partition.Value, e.Position.Offset.Value);
            if (!earlierDeliveries.TryGetValue(key, out long first) || e.Sequence < first)
            {
                earlierDeliveries[key] = e.Sequence;
            }
        }

        // The group's committed offsets as members saw them at assignment, in time order: they must never go backwards.
        var committed = new Dictionary<TopicPartition, (long Offset, string Member)>();
        foreach ((string member, Entry e) in _members.SelectMany(m => m.Value.Select(e => (m.Key, e))).Where(x => x.e.Kind == Kind.Assigned).OrderBy(x => x.e.Sequence))
        {
            if (committed.TryGetValue(e.Position.TopicPartition, out var before) && e.Position.Offset.Value < before.Offset)
            {
                unexplained.Add($"{e.Position.TopicPartition}: the committed offset moved back from {before.Offset} (seen by {before.Member}) to {e.Position.Offset.Value} (seen by {member})");
            }

            committed[e.Position.TopicPartition] = (e.Position.Offset.Value, member);
        }

        foreach ((string member, ConcurrentQueue<Entry> events) in _members)
        {
            var next = new Dictionary<TopicPartition, long>();                  // the offset a continuing run delivers next
            var startAllowed = new Dictionary<TopicPartition, (long Offset, Kind Cause, string Step)>();
            var open = new Dictionary<TopicPartition, (long Start, Kind Cause, string Step, long Last, int Duplicates)>();

            void Close(TopicPartition partition)
            {
                if (open.Remove(partition, out var run))
                {
                    runs.Add(new Run(member, partition, run.Start, run.Last, run.Cause, run.Step, run.Duplicates));
                }

                next.Remove(partition);
            }

            foreach (Entry e in events.OrderBy(e => e.Sequence))
            {
                TopicPartition partition = e.Position.TopicPartition;
                long offset = e.Position.Offset.Value;
                switch (e.Kind)
                {
                    case Kind.Assigned:
                        Close(partition);
                        startAllowed[partition] = (offset, Kind.Assigned, e.Step);
                        break;
                    case Kind.Revoked:
                        Close(partition);
                        startAllowed.Remove(partition);
                        break;
                    case Kind.SeekBack:
                        Close(partition);
                        startAllowed[partition] = (offset, Kind.SeekBack, e.Step);
                        break;
                    case Kind.Delivered:
                        bool duplicate = earlierDeliveries[(partition.Topic, partition.Partition.Value, offset)] < e.Sequence;
                        if (next.TryGetValue(partition, out long expected) && expected == offset)
                        {
                            var run = open[partition];
                            open[partition] = run with { Last = offset, Duplicates = run.Duplicates + (duplicate ? 1 : 0) };
                        }
                        else if (startAllowed.Remove(partition, out var start) && start.Offset == offset)
                        {
                            Close(partition);
                            open[partition] = (offset, start.Cause, start.Step, offset, duplicate ? 1 : 0);
                        }
                        else
                        {
                            string why = next.TryGetValue(partition, out long want) ? $"the run was at {want}" : "no assignment or seek explains it";
                            unexplained.Add($"{member} read {partition} @{offset} during '{e.Step}': {why}");
                            Close(partition);
                            open[partition] = (offset, Kind.Delivered, e.Step, offset, duplicate ? 1 : 0);
                        }

                        next[partition] = offset + 1;
                        break;
                    default:
                        throw new InvalidOperationException(e.Kind.ToString());
                }
            }

            foreach (TopicPartition partition in open.Keys.ToList())
            {
                Close(partition);
            }
        }

        return (runs, unexplained);
    }
}
