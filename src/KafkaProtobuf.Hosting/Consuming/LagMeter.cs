using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Diagnostics;

namespace KafkaProtobuf.Hosting.Consuming;

/// <summary>
/// Measures each assigned partition's lag once a second, on a timer (the loop may be in a handler for long): its end as
/// the consumer last fetched it, past the offset last stored (before one is, the partition's first record consumed;
/// before that, its position). The timer's thread is the one other thread that calls the Kafka consumer: librdkafka
/// answers these calls from any thread. It asks the broker twice: the group's committed offset of a partition with
/// nothing consumed yet (once per assignment), and the end of a paused partition (which fetches nothing), each with a
/// timeout; a measurement that waits is not overlapped by the next. What it measures goes to <see cref="ConsumerLag"/>,
/// which the health check, the lag gauge and the operators' view read.
/// </summary>
/// <param name="lag">Where measurements go.</param>
/// <param name="reset">Where the consumer starts a partition the group never committed (for a partition with nothing consumed).</param>
/// <param name="isPaused">Whether a partition is paused: it fetches nothing, so its end is asked of the broker.</param>
internal sealed class LagMeter<TKey, TValue>(
    ConsumerLag lag, AutoOffsetReset? reset = null, Func<string, int, bool>? isPaused = null) : IDisposable
{
    private static readonly TimeSpan Interval = TimeSpan.FromSeconds(1);
    private static readonly TimeSpan CommittedTimeout = TimeSpan.FromSeconds(2);

    // Per partition (topic and number: a key that costs no allocation per record), after the last offset stored, or its first record's.
    private readonly ConcurrentDictionary<(string Topic, int Partition), Mark> _from = new();
    // Partitions whose committed offset was asked (once per assignment): timer thread only.
    private readonly HashSet<(string Topic, int Partition)> _askedCommitted = [];
    private Timer? _timer;
    private int _measuring; // 1 while a measurement runs: a slow broker must not let the timer's callbacks overlap

    // The loop thread's last partition and its mark: records come in runs of one partition, so most records find their
    // mark here without hashing the topic's name and locking the dictionary (twice a record: taken, then stored).
    private string? _lastTopic;
    private int _lastPartition;
    private Mark? _last;

    /// <summary>Starts measuring <paramref name="consumer"/>'s partitions (before one is assigned there is nothing to measure).</summary>
    public void Start(IConsumer<TKey, TValue> consumer)
    {
        _timer = new Timer(_ => Measure(consumer), null, Interval, Interval);
    }

    /// <summary>A record consumed: the first of its partition marks where the lag counts from (what came before was handled).</summary>
    public void Consumed(string topic, Partition partition, Offset offset) => MarkOf(topic, partition.Value, offset.Value);

    /// <summary>The offset past a record was stored.</summary>
    public void Stored(string topic, Partition partition, Offset offset) =>
        MarkOf(topic, partition.Value, offset.Value + 1).From = offset.Value + 1;

    /// <summary>Partitions taken away: if one comes back, its lag counts from its first record again.</summary>
    public void Revoked(IEnumerable<TopicPartition> partitions)
    {
        foreach (TopicPartition partition in partitions)
        {
            Drop((partition.Topic, partition.Partition.Value));
        }
    }

    /// <summary>On the loop thread: a partition's mark, made at <paramref name="first"/> if it has none.</summary>
    private Mark MarkOf(string topic, int partition, long first)
    {
        if (_last is { Dropped: false } last && _lastPartition == partition && string.Equals(_lastTopic, topic, StringComparison.Ordinal))
        {
            return last;
        }

        if (!_from.TryGetValue((topic, partition), out Mark? mark))
        {
            mark = _from.GetOrAdd((topic, partition), new Mark(first)); // once per partition assigned
        }

        (_lastTopic, _lastPartition, _last) = (topic, partition, mark);
        return mark;
    }

    private void Drop((string Topic, int Partition) partition)
    {
        if (_from.TryRemove(partition, out Mark? mark))
        {
            mark.Dropped = true; // the loop thread's cached mark is not written to any more
        }
    }

    /// <summary>
    /// A partition assigned with nothing consumed from it yet (paused, or empty) has no position: its lag counts from
    /// the group's committed offset, asked of the broker once while it is assigned.
    /// </summary>
    private void FromCommitted(IConsumer<TKey, TValue> consumer, List<TopicPartition> assigned)
    {
        List<TopicPartition> unknown = assigned
            .Where(p => !_from.ContainsKey((p.Topic, p.Partition.Value))
                && !_askedCommitted.Contains((p.Topic, p.Partition.Value))
                && consumer.Position(p).Value < 0)
            .ToList();
        if (unknown.Count == 0)
        {
            return;
        }

        foreach (TopicPartitionOffset committed in consumer.Committed(unknown, CommittedTimeout))
        {
            _askedCommitted.Add((committed.Topic, committed.Partition.Value));
            if (committed.Offset.Value >= 0)
            {
                _from.TryAdd((committed.Topic, committed.Partition.Value), new Mark(committed.Offset.Value));
            }
        }
    }

    /// <summary>Stops the timer, waiting for a measurement in progress, before the client goes.</summary>
    public void Dispose()
    {
        using var stopped = new ManualResetEvent(false);
        if (_timer is { } timer && timer.Dispose(stopped))
        {
            stopped.WaitOne(TimeSpan.FromSeconds(5));
        }

        _timer = null;
    }

    private void Measure(IConsumer<TKey, TValue> consumer)
    {
        if (Interlocked.Exchange(ref _measuring, 1) == 1)
        {
            return; // the last one still waits for the broker (committed offsets, a paused partition's end)
        }

        try
        {
            MeasureOnce(consumer);
        }
        finally
        {
            Volatile.Write(ref _measuring, 0);
        }
    }

    private void MeasureOnce(IConsumer<TKey, TValue> consumer)
    {
        var measured = new List<PartitionLag>();
        string? memberId;
        List<TopicPartition> assigned;
        try
        {
            memberId = consumer.MemberId;
            assigned = consumer.Assignment;
            FromCommitted(consumer, assigned);
            foreach (TopicPartition partition in assigned)
            {
                long end = consumer.GetWatermarkOffsets(partition).High.Value;
                long from = _from.TryGetValue((partition.Topic, partition.Partition.Value), out Mark? stored)
                    ? stored.From
                    : consumer.Position(partition).Value;
                if (end < 0 || from < 0 || isPaused?.Invoke(partition.Topic, partition.Partition.Value) == true)
                {
                    // nothing fetched (paused, or not yet): the broker says where the partition ends
                    WatermarkOffsets marks = consumer.QueryWatermarkOffsets(partition, CommittedTimeout);
                    end = marks.High.Value;
                    if (from < 0)
                    {
                        from = reset switch
                        {
                            AutoOffsetReset.Earliest => marks.Low.Value,
                            AutoOffsetReset.Latest or null => marks.High.Value, // librdkafka's default
                            _ => -1,
                        };
                    }
                }

                if (end >= 0 && from >= 0)
                {
                    measured.Add(new PartitionLag(partition.Topic, partition.Partition.Value, Math.Max(0, end - from), from, end));
                }
            }

            var unassigned = _from.Keys.Where(k => !assigned.Contains(new TopicPartition(k.Topic, k.Partition))).ToList();
            foreach ((string Topic, int Partition) gone in unassigned)
            {
                Drop(gone);
            }

            _askedCommitted.RemoveWhere(k => !assigned.Contains(new TopicPartition(k.Topic, k.Partition)));
        }
        catch (Exception e) when (e is KafkaException or ObjectDisposedException or InvalidOperationException)
        {
            return; // closing: the last measurement stands until the consumer's status says stopped
        }

        lag.Measured(measured, memberId, assigned);
    }

    /// <summary>Where a partition's lag counts from: written on the loop thread, read on the timer's.</summary>
    private sealed class Mark(long from)
    {
        private long _from = from;
        private volatile bool _dropped;

        public long From
        {
            get => Volatile.Read(ref _from);
            set => Volatile.Write(ref _from, value);
        }

        /// <summary>Taken out of the meter (revoked, or no longer assigned): the loop looks its partition up again.</summary>
        public bool Dropped
        {
            get => _dropped;
            set => _dropped = value;
        }
    }
}
