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
/// before that, its position). Nothing is asked of the broker; librdkafka answers these from any thread. What it
/// measures goes to <see cref="ConsumerLag"/>, which the health check and the lag gauge read.
/// </summary>
internal sealed class LagMeter<TKey, TValue>(ConsumerLag lag) : IDisposable
{
    private static readonly TimeSpan Interval = TimeSpan.FromSeconds(1);

    // Per partition (topic and number: a key that costs no allocation per record), after the last offset stored, or its first record's.
    private readonly ConcurrentDictionary<(string Topic, int Partition), long> _from = new();
    private Timer? _timer;

    /// <summary>Starts measuring <paramref name="consumer"/>'s partitions (before one is assigned there is nothing to measure).</summary>
    public void Start(IConsumer<TKey, TValue> consumer)
    {
        _timer = new Timer(_ => Measure(consumer), null, Interval, Interval);
    }

    /// <summary>A record consumed: the first of its partition marks where the lag counts from (what came before was handled).</summary>
    public void Consumed(string topic, Partition partition, Offset offset) => _from.TryAdd((topic, partition.Value), offset.Value);

    /// <summary>The offset past a record was stored.</summary>
    public void Stored(string topic, Partition partition, Offset offset) => _from[(topic, partition.Value)] = offset.Value + 1;

    /// <summary>Partitions taken away: if one comes back, its lag counts from its first record again.</summary>
    public void Revoked(IEnumerable<TopicPartition> partitions)
    {
        foreach (TopicPartition partition in partitions)
        {
            _from.TryRemove((partition.Topic, partition.Partition.Value), out _);
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
        var measured = new List<PartitionLag>();
        try
        {
            List<TopicPartition> assigned = consumer.Assignment;
            foreach (TopicPartition partition in assigned)
            {
                long end = consumer.GetWatermarkOffsets(partition).High.Value;
                long from = _from.TryGetValue((partition.Topic, partition.Partition.Value), out long stored)
                    ? stored
                    : consumer.Position(partition).Value;
                if (end >= 0 && from >= 0)
                {
                    measured.Add(new PartitionLag(partition.Topic, partition.Partition.Value, Math.Max(0, end - from)));
                }
            }

            var unassigned = _from.Keys.Where(k => !assigned.Contains(new TopicPartition(k.Topic, k.Partition))).ToList();
            foreach ((string Topic, int Partition) gone in unassigned)
            {
                _from.TryRemove(gone, out _);
            }
        }
        catch (Exception e) when (e is KafkaException or ObjectDisposedException or InvalidOperationException)
        {
            return; // closing: the last measurement stands until the consumer's status says stopped
        }

        lag.Measured(measured);
    }
}
