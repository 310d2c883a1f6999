using System;
using System.Collections.Generic;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Consuming;

namespace KafkaProtobuf.Hosting.Batching;

/// <summary>
/// Fills batches on the loop thread: one open batch per partition (or one for all, across partitions), handed over when
/// it is full, when its first record has waited long enough, when the read-ahead budget ran out as it took a record (its
/// partition pauses, so it would not grow), or cut short where a record cannot join it (a poison record, a record to
/// read again later), so that what came before goes on in order. Records in open batches count against the read-ahead
/// budget until their batch is handed over (whoever takes it counts it from then on) or discarded. Batches of partitions
/// taken away or read again from an earlier record are discarded: they are read again.
/// </summary>
internal sealed class BatchCollector<TKey, TValue>
{
    // The most the collector keeps of concluded batches' chunks for the next ones (an eighth of the budget, if less).
    private const long MostChunksKept = 1024 * 1024;

    private readonly Dictionary<(string Topic, int Partition), RecordBatch<TKey, TValue>> _open = [];
    // When each batch opened is due, in the order they opened (so in due order), by its slot and due time only: an entry
    // outlives its batch until it reaches the head, and must not keep a handed-over batch's records alive that long
    // (behind a quiet partition's batch, a second of every other partition's records). An entry whose slot's open batch
    // is gone, or is another with another due time, is stale and skipped.
    private readonly Queue<((string Topic, int Partition) Slot, TimeSpan DueAt)> _byAge = new();
    private readonly int _maxSize;
    private readonly TimeSpan _maxWait;
    private readonly bool _acrossPartitions;
    private readonly PartitionPausing _pausing;
    private readonly ChunkPool _chunks;
    private int _lastByteCount; // the last batch handed over's: how large the next one's buffer starts

    /// <param name="options">Sizes and wait.</param>
    /// <param name="pausing">The read-ahead budget open batches count against, and the clock their wait is measured on.</param>
    public BatchCollector(BatchOptions options, PartitionPausing pausing)
    {
        _maxSize = options.MaxSize;
        _maxWait = options.MaxWait;
        _acrossPartitions = options.AcrossPartitions;
        _pausing = pausing;
        _chunks = new ChunkPool(Math.Min(MostChunksKept, pausing.MaxReadAheadBytes / 8));
    }

    /// <summary>
    /// Adds a consumed record (its bytes borrowed from the deserializers' capture); returns its batch when that is now
    /// full.
    /// </summary>
    public RecordBatch<TKey, TValue>? Add(
        ConsumeResult<TKey, TValue> record, ReadOnlySpan<byte> key, bool keyIsNull, ReadOnlySpan<byte> value, bool valueIsNull) =>
        Add(record, record, key, keyIsNull, value, valueIsNull);

    /// <summary>
    /// Adds a consumed record with what its handler sees of it (see <see cref="RecordBatch{TKey, TValue}.Add"/>); returns
    /// its batch when that is now full, or when the record took the read-ahead budget past its end.
    /// </summary>
    public RecordBatch<TKey, TValue>? Add(
        ConsumeResult<TKey, TValue> record,
        ConsumeResult<TKey, TValue> handlerView,
        ReadOnlySpan<byte> key,
        bool keyIsNull,
        ReadOnlySpan<byte> value,
        bool valueIsNull)
    {
        (string, int) slot = SlotOf(record.Topic, record.Partition);
        if (!_open.TryGetValue(slot, out RecordBatch<TKey, TValue>? batch))
        {
            batch = new RecordBatch<TKey, TValue>(_maxSize, _lastByteCount, _chunks) { DueAt = _pausing.Now + _maxWait };
            Open(slot, batch);
        }

        long before = batch.ReadAheadCharge;
        batch.Add(record, handlerView, key, keyIsNull, value, valueIsNull);
        bool ranOut = _pausing.Charge(record.Topic, record.Partition, batch.ReadAheadCharge - before);
        return batch.Count >= _maxSize || ranOut ? Close(slot, batch) : null;
    }

    /// <summary>
    /// A record of the partition cannot join a batch (it is poison, or read again later): the open batch holding the
    /// partition's records so far, handed over now, or null.
    /// </summary>
    public RecordBatch<TKey, TValue>? Cut(string topic, Partition partition)
    {
        (string, int) slot = SlotOf(topic, partition);
        return _open.TryGetValue(slot, out RecordBatch<TKey, TValue>? batch) && batch.Holds(topic, partition) ? Close(slot, batch) : null;
    }

    /// <summary>An open batch whose first record has waited <see cref="BatchOptions.MaxWait"/>, the oldest first.</summary>
    public bool TryTakeDue(out RecordBatch<TKey, TValue> batch)
    {
        while (_byAge.Count > 0 && OpenBatchOf(_byAge.Peek()) is null)
        {
            _byAge.Dequeue();
        }

        if (_byAge.Count > 0 && _byAge.Peek().DueAt <= _pausing.Now)
        {
            ((string, int) slot, _) = _byAge.Dequeue();
            batch = Close(slot, _open[slot]);
            return true;
        }

        batch = null!;
        return false;
    }

    /// <summary>How long until the next open batch is due (zero if one is); null when none is open.</summary>
    public TimeSpan? UntilNextDue
    {
        get
        {
            foreach (((string, int) Slot, TimeSpan DueAt) entry in _byAge)
            {
                if (OpenBatchOf(entry) is not null)
                {
                    TimeSpan left = entry.DueAt - _pausing.Now;
                    return left > TimeSpan.Zero ? left : TimeSpan.Zero;
                }
            }

            return null;
        }
    }

    /// <summary>The partition's records in open batches are dropped: it was taken away, or is read again from an earlier record.</summary>
    public void Discard(TopicPartition partition)
    {
        (string, int) slot = SlotOf(partition.Topic, partition.Partition);
        if (!_open.TryGetValue(slot, out RecordBatch<TKey, TValue>? batch) || !batch.Holds(partition.Topic, partition.Partition))
        {
            return;
        }

        Close(slot, batch);
        if (_acrossPartitions)
        {
            // The other partitions' records stay (their consumer position is already past them), and still count.
            RecordBatch<TKey, TValue> rest = batch.Without(partition);
            if (rest.Count > 0)
            {
                Open(slot, rest);
                _pausing.Hold(rest.ReadAheadCharge);
            }
        }

        batch.ReleaseBytes();
    }

    /// <summary>
    /// Partitions taken away: their records in open batches are their new owner's (and, should this member get them
    /// back, read again from the committed offset: an old batch handed over then would store an offset past records of
    /// the new reading not yet handled).
    /// </summary>
    public void Discard(IEnumerable<TopicPartition> partitions)
    {
        foreach (TopicPartition partition in partitions)
        {
            Discard(partition);
        }
    }

    /// <summary>Shutdown: every open batch is dropped, not committed (read again when the group next reads its partitions).</summary>
    public void DiscardAll()
    {
        foreach (RecordBatch<TKey, TValue> batch in _open.Values)
        {
            _pausing.Release(batch.ReadAheadCharge);
            batch.ReleaseBytes();
        }

        _open.Clear();
        _byAge.Clear();
    }

    private void Open((string, int) slot, RecordBatch<TKey, TValue> batch)
    {
        _open.Add(slot, batch);
        _byAge.Enqueue((slot, batch.DueAt));
    }

    /// <summary>The open batch an entry of <see cref="_byAge"/> stands for; null if it is stale.</summary>
    private RecordBatch<TKey, TValue>? OpenBatchOf(((string, int) Slot, TimeSpan DueAt) entry) =>
        _open.TryGetValue(entry.Slot, out RecordBatch<TKey, TValue>? batch) && batch.DueAt == entry.DueAt ? batch : null;

    /// <summary>The batch leaves the collector (handed over or discarded): it no longer counts here.</summary>
    private RecordBatch<TKey, TValue> Close((string, int) slot, RecordBatch<TKey, TValue> batch)
    {
        _open.Remove(slot);
        _pausing.Release(batch.ReadAheadCharge);
        _lastByteCount = (int)Math.Min(batch.ByteCount, int.MaxValue);
        return batch;
    }

    private (string Topic, int Partition) SlotOf(string topic, Partition partition) => _acrossPartitions
        ? (string.Empty, -1)
        : (topic, partition.Value);
}
