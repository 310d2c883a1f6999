using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;

namespace KafkaProtobuf.Redrive;

/// <summary>
/// Reads a dead-letter topic a window at a time, newest first: from each partition at most a window's worth of records
/// before a cursor, never the whole topic, so a topic of millions pages as fast as one of hundreds. One Kafka consumer
/// that reads and commits nothing (it assigns, joins no group) and that calls take turns on; its own connections, so
/// nothing it waits for holds up an application's consumers. Thread-safe.
/// </summary>
public sealed class DeadLetterTopicReader : IDisposable
{
    /// <summary>The most records one window holds: 1,000.</summary>
    public static int MaxWindowRecords { get; } = 1000;

    private static readonly TimeSpan BrokerTimeout = TimeSpan.FromSeconds(5);
    private static readonly TimeSpan ReadTimeout = TimeSpan.FromSeconds(10);
    private static readonly TimeSpan PollWait = TimeSpan.FromMilliseconds(100);

    private readonly ConsumerConfig _config;
    private readonly SemaphoreSlim _turn = new(1, 1);
    private readonly ProvenanceCodec _codec;
    private IConsumer<byte[], byte[]>? _consumer;
    private IAdminClient? _metadata;
    private volatile bool _disposed;

    /// <summary>Creates a reader that reads dead letters without keys (signed blocks read unchecked); it connects on its first read.</summary>
    /// <param name="kafka">How to reach the cluster (bootstrap servers, security). Copied.</param>
    public DeadLetterTopicReader(ClientConfig kafka)
        : this(kafka, null)
    {
    }

    /// <summary>Creates a reader; it connects on its first read.</summary>
    /// <param name="kafka">How to reach the cluster (bootstrap servers, security). Copied.</param>
    /// <param name="provenanceKeys">The keys dead letters' blocks are verified with (<see cref="ProvenanceKeys"/>); null: read unchecked.</param>
    public DeadLetterTopicReader(ClientConfig kafka, ProvenanceKeys? provenanceKeys)
    {
        _codec = new ProvenanceCodec(provenanceKeys);
        if (kafka is null)
        {
            throw new ArgumentNullException(nameof(kafka));
        }

        _config = new ConsumerConfig(kafka.ToDictionary(e => e.Key, e => e.Value))
        {
            GroupId = "kafkaprotobuf-dead-letter-reader", // librdkafka wants one; it is never joined, nothing is committed to it
            EnableAutoCommit = false,
            EnableAutoOffsetStore = false,
            EnablePartitionEof = true,
            AutoOffsetReset = AutoOffsetReset.Earliest,
            FetchWaitMaxMs = 20, // a window ends at a known offset: a fetch need not wait for more records to come
        };
    }

    /// <summary>
    /// A window of <paramref name="topic"/>: from each partition, up to <paramref name="maxRecords"/> records before the
    /// cursor (each partition's end when the cursor does not name it), newest first, at most
    /// <paramref name="maxRecords"/> in all; and the cursor of the next, older window.
    /// </summary>
    /// <param name="topic">The dead-letter topic.</param>
    /// <param name="before">Where the window ends; <see langword="null"/>: the newest window.</param>
    /// <param name="maxRecords">The most records in the window, 1 to <see cref="MaxWindowRecords"/>.</param>
    /// <param name="cancellationToken">Stops waiting for a turn or for records.</param>
    /// <returns>
    /// The window, or <see langword="null"/> when the topic does not exist (a dead-letter topic exists once a record
    /// has failed: nothing to show is not an error here, while a redrive of it is, <see cref="DeadLetterRedrive.Run"/>).
    /// </returns>
    /// <exception cref="ArgumentException"><paramref name="topic"/> is null or empty (thrown at the call).</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="maxRecords"/> is out of range (thrown at the call).</exception>
    /// <exception cref="KafkaException">The brokers did not answer.</exception>
    /// <exception cref="ObjectDisposedException">The reader was disposed.</exception>
    public Task<DeadLetterWindow?> ReadWindowAsync(string topic, DeadLetterCursor? before, int maxRecords, CancellationToken cancellationToken = default)
    {
        CheckTopic(topic);
        if (maxRecords < 1 || maxRecords > MaxWindowRecords)
        {
            throw new ArgumentOutOfRangeException(nameof(maxRecords), maxRecords, "A window holds 1 to " + MaxWindowRecords + " records.");
        }

        return OnTurnAsync(() => ReadWindow(topic, before ?? DeadLetterCursor.Newest, maxRecords, cancellationToken), cancellationToken);
    }

    /// <summary>One dead letter, or <see langword="null"/> when the partition has no record at that offset.</summary>
    /// <param name="topic">The dead-letter topic.</param>
    /// <param name="partition">The partition, 0 or more.</param>
    /// <param name="offset">The offset, 0 or more.</param>
    /// <param name="cancellationToken">Stops waiting for a turn or for the record.</param>
    /// <returns>The dead letter, or null.</returns>
    /// <exception cref="ArgumentException"><paramref name="topic"/> is null or empty (thrown at the call).</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="partition"/> or <paramref name="offset"/> is negative (thrown at the call).</exception>
    /// <exception cref="KafkaException">The brokers did not answer.</exception>
    /// <exception cref="ObjectDisposedException">The reader was disposed.</exception>
    public Task<DeadLetter?> ReadAsync(string topic, int partition, long offset, CancellationToken cancellationToken = default)
    {
        CheckTopic(topic);
        if (partition < 0)
        {
            throw new ArgumentOutOfRangeException(nameof(partition), partition, "A partition number is 0 or more.");
        }

        if (offset < 0)
        {
            throw new ArgumentOutOfRangeException(nameof(offset), offset, "An offset is 0 or more.");
        }

        return OnTurnAsync(
            () =>
            {
                List<ConsumeResult<byte[], byte[]>> read = Read(new Dictionary<int, (long, long)> { [partition] = (offset, offset + 1) }, topic, cancellationToken);
                ConsumeResult<byte[], byte[]>? record = read.FirstOrDefault(r => r.Offset.Value == offset);
                return record is null ? null : _codec.Read(record);
            },
            cancellationToken);
    }

    /// <summary>
    /// Closes the reader's connections without waiting: a read going on finishes (or times out) and closes them when
    /// it ends; later reads throw <see cref="ObjectDisposedException"/>.
    /// </summary>
    public void Dispose()
    {
        _disposed = true;
        if (_turn.Wait(0))
        {
            CloseAndRelease();
        }
    }

    private static void CheckTopic(string topic)
    {
        if (string.IsNullOrEmpty(topic))
        {
            throw new ArgumentException("A topic is needed.", nameof(topic));
        }
    }

    /// <summary>Ends a turn: the last one, when the reader was disposed meanwhile, closes the connections.</summary>
    private void CloseAndRelease()
    {
        try
        {
            if (_disposed)
            {
                _metadata?.Dispose();
                _consumer?.Dispose();
                _metadata = null;
                _consumer = null;
            }
        }
        finally
        {
            _turn.Release();
        }
    }

    /// <summary>Runs a read when no other is, on a thread of the pool (librdkafka's calls block).</summary>
    private async Task<T> OnTurnAsync<T>(Func<T> read, CancellationToken cancellationToken)
    {
        await _turn.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
#if NETSTANDARD2_0
            if (_disposed)
            {
                throw new ObjectDisposedException(nameof(DeadLetterTopicReader));
            }
#else
            ObjectDisposedException.ThrowIf(_disposed, this);
#endif

            return await Task.Run(read, cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            CloseAndRelease();
        }
    }

    private DeadLetterWindow? ReadWindow(string topic, DeadLetterCursor cursor, int count, CancellationToken cancellationToken)
    {
        IConsumer<byte[], byte[]> consumer = Consumer();
        _metadata ??= new DependentAdminClientBuilder(consumer.Handle).Build();
        TopicMetadata? metadata = _metadata.GetMetadata(topic, BrokerTimeout).Topics.FirstOrDefault(t => t.Topic == topic);
        if (metadata is null || metadata.Error.Code != ErrorCode.NoError)
        {
            return null;
        }

        var ranges = new List<DeadLetterPartitionRange>();
        var toRead = new Dictionary<int, (long From, long Before)>();
        foreach (int partition in metadata.Partitions.Select(p => p.PartitionId).OrderBy(p => p))
        {
            WatermarkOffsets marks = consumer.QueryWatermarkOffsets(new TopicPartition(topic, partition), BrokerTimeout);
            long start = Math.Max(0, marks.Low.Value), end = Math.Max(start, marks.High.Value);
            ranges.Add(new DeadLetterPartitionRange(partition, start, end));
            long before = Math.Min(cursor.OffsetIn(partition) ?? end, end);
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
        foreach (DeadLetterPartitionRange range in ranges)
        {
            long before = Math.Min(cursor.OffsetIn(range.Partition) ?? range.End, range.End);
            long oldestTaken = taken.Where(r => r.Partition.Value == range.Partition).Select(r => r.Offset.Value).DefaultIfEmpty(before).Min();
            older[range.Partition] = Math.Max(range.Start, Math.Min(before, oldestTaken));
        }

        bool more = ranges.Any(r => older[r.Partition] > r.Start);
        return new DeadLetterWindow(
            topic,
            ranges.AsReadOnly(),
            taken.Select(_codec.Read).ToList().AsReadOnly(),
            more ? DeadLetterCursor.Before(older) : null);
    }

    /// <summary>Each partition's records in [From, Before), until each is read or the read times out (what was read is returned).</summary>
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
