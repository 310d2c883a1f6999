using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;

namespace KafkaProtobuf.AspNetCore.DeadLetters;

/// <summary>
/// Reads windows of dead-letter topics for the page: per partition, at most a page of records before a cursor (never
/// the whole topic), with one Kafka consumer the requests take turns on (no group: it assigns, reads and commits
/// nothing). Its own connections: whatever it waits for, the application's consumers never wait with it.
/// </summary>
internal sealed class DeadLetterReader : IDisposable
{
    private static readonly TimeSpan BrokerTimeout = TimeSpan.FromSeconds(5);
    private static readonly TimeSpan ReadTimeout = TimeSpan.FromSeconds(10);
    private static readonly TimeSpan PollWait = TimeSpan.FromMilliseconds(100);

    private readonly ConsumerConfig _config;
    private readonly SemaphoreSlim _turn = new(1, 1);
    private IConsumer<byte[], byte[]>? _consumer;
    private IAdminClient? _metadata;

    public DeadLetterReader(ClientConfig kafka)
    {
        _config = new ConsumerConfig(kafka.ToDictionary(e => e.Key, e => e.Value))
        {
            GroupId = "kafkaprotobuf-operations-page", // required by librdkafka; nothing is committed to it
            EnableAutoCommit = false,
            EnableAutoOffsetStore = false,
            EnablePartitionEof = true,
            AutoOffsetReset = AutoOffsetReset.Earliest,
            FetchWaitMaxMs = 20, // a window ends at a known offset: a fetch need not wait for more records to come
        };
    }

    /// <summary>
    /// A window of <paramref name="topic"/>: from each partition, up to <paramref name="count"/> records before its
    /// cursor (its end when the cursor has none), newest first, at most <paramref name="count"/> in all; and the
    /// cursor past the oldest taken from each partition.
    /// </summary>
    /// <exception cref="KafkaException">The brokers did not answer.</exception>
    public async Task<DeadLetterWindow> ReadWindowAsync(string topic, WindowCursor cursor, int count, CancellationToken cancellationToken)
    {
        await _turn.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            return await Task.Run(() => ReadWindow(topic, cursor, count, cancellationToken), cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            _turn.Release();
        }
    }

    /// <summary>One record, or null when the partition has none at that offset.</summary>
    /// <exception cref="KafkaException">The brokers did not answer.</exception>
    public async Task<ConsumeResult<byte[], byte[]>?> ReadOneAsync(string topic, int partition, long offset, CancellationToken cancellationToken)
    {
        await _turn.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            return await Task.Run(
                () =>
                {
                    IReadOnlyList<ConsumeResult<byte[], byte[]>> read = Read(new Dictionary<int, (long, long)> { [partition] = (offset, offset + 1) }, topic, cancellationToken);
                    return read.FirstOrDefault(r => r.Offset.Value == offset);
                },
                cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            _turn.Release();
        }
    }

    public void Dispose()
    {
        _metadata?.Dispose();
        _consumer?.Dispose();
        _turn.Dispose();
    }

    private DeadLetterWindow ReadWindow(string topic, WindowCursor cursor, int count, CancellationToken cancellationToken)
    {
        IConsumer<byte[], byte[]> consumer = Consumer();
        _metadata ??= new DependentAdminClientBuilder(consumer.Handle).Build();
        TopicMetadata? metadata = _metadata.GetMetadata(topic, BrokerTimeout).Topics.FirstOrDefault();
        if (metadata is null || metadata.Error.Code != ErrorCode.NoError)
        {
            return new DeadLetterWindow([], [], null, Exists: false);
        }

        var ranges = new List<(int Partition, long Start, long End)>();
        var toRead = new Dictionary<int, (long From, long Before)>();
        foreach (int partition in metadata.Partitions.Select(p => p.PartitionId).OrderBy(p => p))
        {
            WatermarkOffsets marks = consumer.QueryWatermarkOffsets(new TopicPartition(topic, partition), BrokerTimeout);
            long start = Math.Max(0, marks.Low.Value), end = Math.Max(start, marks.High.Value);
            ranges.Add((partition, start, end));
            long before = Math.Min(cursor.Before(partition) ?? end, end);
            long from = Math.Max(start, before - count);
            if (from < before)
            {
                toRead[partition] = (from, before);
            }
        }

        List<ConsumeResult<byte[], byte[]>> taken = Read(toRead, topic, cancellationToken)
            .OrderByDescending(r => r.Message.Timestamp.UnixTimestampMs)
            .ThenByDescending(r => r.Offset.Value)
            .ThenBy(r => r.Partition.Value)
            .Take(count)
            .ToList();

        var older = new Dictionary<int, long>();
        foreach ((int partition, long start, long end) in ranges)
        {
            long before = Math.Min(cursor.Before(partition) ?? end, end);
            long oldestTaken = taken.Where(r => r.Partition.Value == partition).Select(r => r.Offset.Value).DefaultIfEmpty(before).Min();
            older[partition] = Math.Max(start, Math.Min(before, oldestTaken));
        }

        bool more = ranges.Any(r => older[r.Partition] > r.Start);
        return new DeadLetterWindow(ranges, taken, more ? new WindowCursor(older) : null, Exists: true);
    }

    /// <summary>Each partition's records in [From, Before), until each is read or the read times out.</summary>
    private List<ConsumeResult<byte[], byte[]>> Read(IReadOnlyDictionary<int, (long From, long Before)> toRead, string topic, CancellationToken cancellationToken)
    {
        var records = new List<ConsumeResult<byte[], byte[]>>();
        if (toRead.Count == 0)
        {
            return records;
        }

        IConsumer<byte[], byte[]> consumer = Consumer();
        consumer.Assign(toRead.Select(p => new TopicPartitionOffset(topic, p.Key, p.Value.From)));
        try
        {
            var remaining = new HashSet<int>(toRead.Keys);
            DateTime giveUp = DateTime.UtcNow + ReadTimeout;
            while (remaining.Count > 0 && DateTime.UtcNow < giveUp)
            {
                cancellationToken.ThrowIfCancellationRequested();
                ConsumeResult<byte[], byte[]>? record = consumer.Consume(PollWait);
                if (record is null || !toRead.TryGetValue(record.Partition.Value, out (long From, long Before) range))
                {
                    continue;
                }

                if (record.IsPartitionEOF || record.Offset.Value >= range.Before - 1)
                {
                    if (!record.IsPartitionEOF && record.Offset.Value < range.Before)
                    {
                        records.Add(record);
                    }

                    remaining.Remove(record.Partition.Value);
                    consumer.Pause([record.TopicPartition]);
                    continue;
                }

                if (record.Offset.Value >= range.From)
                {
                    records.Add(record);
                }
            }
        }
        finally
        {
            consumer.Resume(consumer.Assignment); // librdkafka keeps a pause across assignments
            consumer.Unassign();
        }

        return records;
    }

    private IConsumer<byte[], byte[]> Consumer() => _consumer ??= new ConsumerBuilder<byte[], byte[]>(_config).SetLogHandler((_, _) => { }).Build();
}
