using System;
using System.Collections;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Consuming;
using KafkaProtobuf.Hosting.Handling;
using KafkaProtobuf.Hosting.Scheduling;

namespace KafkaProtobuf.Hosting.Batching;

/// <summary>
/// Records handed to a batch handler at once, in the order they were read, with their bytes as written (for dead
/// letters); or, to keep a partition's order, a poison record standing in a batch's place (dead-lettered in its turn,
/// never handed to the handler). The scheduler sees one record holding all their bytes.
/// </summary>
internal sealed class RecordBatch<TKey, TValue> : ScheduledWork, IReadOnlyList<ConsumeResult<TKey, TValue>>
{
    private readonly List<ConsumeResult<TKey, TValue>> _records;
    private List<ConsumeResult<TKey, TValue>>? _views; // what the handler sees, when a retry topic's record is shown at its first position
    private readonly CopiedBytes _bytes; // the key of record i at 2i, its value at 2i + 1
    private readonly ChunkPool? _chunks;
    private int _readAgainAt = -1;

    /// <param name="capacity">How many records it takes at most.</param>
    /// <param name="expectedBytes">How many bytes its records' keys and values are likely to hold (the batch before's).</param>
    /// <param name="chunks">Where the chunks its bytes are copied into come from and go back to; none: each is allocated.</param>
    public RecordBatch(int capacity, int expectedBytes = 0, ChunkPool? chunks = null)
    {
        _records = new List<ConsumeResult<TKey, TValue>>(capacity);
        _chunks = chunks;
        _bytes = new CopiedBytes(expectedBytes, chunks);
    }

    public int Count => _records.Count;

    /// <summary>The key and value bytes its records hold.</summary>
    public long ByteCount => _bytes.Length;

    /// <summary>Set for a poison record's place in its partition's order.</summary>
    public ConsumeException? Poison { get; private set; }

    /// <summary>
    /// When the batch is handed over however full it is (<see cref="Consuming.PartitionPausing.Now"/> of its first
    /// record plus the wait).
    /// </summary>
    public TimeSpan DueAt { get; set; }

    /// <summary>
    /// After a failed batch was split: what became of each record; null while the batch's own
    /// <see cref="ScheduledWork.Result"/> says it for all.
    /// </summary>
    public HandlerResult[]? RecordResults { get; set; }

    public Activity? Activity { get; set; }

    /// <summary>Where the partition is read again from: the record whose dead letter failed, once the conclusion said so.</summary>
    public override TopicPartitionOffset ReadAgainFrom => _readAgainAt < 0 ? Position : _records[_readAgainAt].TopicPartitionOffset;

    public ConsumeResult<TKey, TValue> this[int index] => _records[index];

    public static RecordBatch<TKey, TValue> OfPoison(ConsumeException poison)
    {
        ConsumeResult<byte[], byte[]> raw = poison.ConsumerRecord;
        var batch = new RecordBatch<TKey, TValue>(0) { Poison = poison };
        batch.Place(raw.Topic, raw.Partition, raw.Offset, 0, needsHandler: false);
        return batch;
    }

    /// <summary>
    /// A record whose handler already failed for good (its dead letter was not written, and it was read again), standing
    /// in its partition's order as a batch of its own: concluded with <paramref name="failed"/>, never handed to the handler again.
    /// </summary>
    public static RecordBatch<TKey, TValue> OfFailed(
        ConsumeResult<TKey, TValue> record,
        ConsumeResult<TKey, TValue> handlerView,
        ReadOnlySpan<byte> key,
        bool keyIsNull,
        ReadOnlySpan<byte> value,
        bool valueIsNull,
        HandlerResult failed)
    {
        var batch = new RecordBatch<TKey, TValue>(1);
        batch.Add(record, handlerView, key, keyIsNull, value, valueIsNull);
        batch.Place(record.Topic, record.Partition, record.Offset, 0, needsHandler: false);
        batch.Result = failed;
        return batch;
    }

    /// <summary>What the handler is given: the records, or (a retry topic's among them) each as its handler sees it.</summary>
    public IReadOnlyList<ConsumeResult<TKey, TValue>> ForHandler => (IReadOnlyList<ConsumeResult<TKey, TValue>>?)_views ?? this;

    /// <summary>Adds a record and copies its key and value bytes (borrowed from the deserializers' capture).</summary>
    /// <param name="record">The record as read.</param>
    /// <param name="handlerView">The record as its handler sees it (for a retry topic's record, at the position it was
    /// first read from).</param>
    /// <param name="key">The key's bytes.</param>
    /// <param name="keyIsNull">Whether the key is null.</param>
    /// <param name="value">The value's bytes.</param>
    /// <param name="valueIsNull">Whether the value is null.</param>
    public void Add(
        ConsumeResult<TKey, TValue> record,
        ConsumeResult<TKey, TValue> handlerView,
        ReadOnlySpan<byte> key,
        bool keyIsNull,
        ReadOnlySpan<byte> value,
        bool valueIsNull)
    {
        if (_records.Count == 0)
        {
            Place(record.Topic, record.Partition, record.Offset, 0, needsHandler: true);
        }

        if (_views is null && !ReferenceEquals(handlerView, record))
        {
            _views = new List<ConsumeResult<TKey, TValue>>(_records.Capacity);
            _views.AddRange(_records);
        }

        _views?.Add(handlerView);
        _records.Add(record);
        _bytes.Add(key, keyIsNull);
        _bytes.Add(value, valueIsNull);
    }

    /// <summary>What the handler made of the record at <paramref name="index"/>.</summary>
    public HandlerResult ResultOf(int index) => RecordResults?[index] ?? Result;

    /// <summary>The record's key and value as written, as new arrays.</summary>
    public (byte[]? Key, byte[]? Value) BytesOf(int index) => (_bytes.ToArray(2 * index), _bytes.ToArray((2 * index) + 1));

    /// <summary>The conclusion stopped at the record at <paramref name="index"/>: its partition is read again from there.</summary>
    public void ReadAgainAt(int index) => _readAgainAt = index;

    /// <summary>
    /// After <see cref="ReadAgainAt"/>: where each partition with records from there on is read again from (its first
    /// record from there), for a batch across partitions whose conclusion stopped part way.
    /// </summary>
    public List<TopicPartitionOffset> ReadAgainPositions() =>
        OnePerPartition(Math.Max(_readAgainAt, 0), lastOfEach: false).ConvertAll(record => record.TopicPartitionOffset);

    /// <summary>
    /// The last record of each partition in the batch, the last first: where each partition's offset is stored once the
    /// batch is handled.
    /// </summary>
    public List<ConsumeResult<TKey, TValue>> LastOfEachPartition() => OnePerPartition(0, lastOfEach: true);

    /// <summary>
    /// A new batch of the records not of <paramref name="partition"/>, due when this one was (this one gives its bytes
    /// back).
    /// </summary>
    public RecordBatch<TKey, TValue> Without(TopicPartition partition)
    {
        var rest = new RecordBatch<TKey, TValue>(_records.Capacity, (int)Math.Min(ByteCount, int.MaxValue), _chunks) { DueAt = DueAt };
        for (int i = 0; i < _records.Count; i++)
        {
            ConsumeResult<TKey, TValue> record = _records[i];
            if (!IsOf(record, partition.Topic, partition.Partition))
            {
                ReadOnlySpan<byte> key = _bytes.Span(2 * i, out bool keyIsNull);
                ReadOnlySpan<byte> value = _bytes.Span((2 * i) + 1, out bool valueIsNull);
                rest.Add(record, _views?[i] ?? record, key, keyIsNull, value, valueIsNull);
            }
        }

        ReleaseBytes();
        return rest;
    }

    /// <summary>Whether a record of the partition is in the batch.</summary>
    public bool Holds(string topic, Partition partition) => Holds(_records, topic, partition);

    /// <summary>The copied bytes are let go: the batch was concluded or dropped.</summary>
    public void ReleaseBytes() => _bytes.ReleaseBytes();

    /// <summary>
    /// What the batch counts against the read-ahead budget: its records' messages (read at consume, taken to be as
    /// large as their bytes) and the buffer their bytes are copied into, as large as it is; or a poison record's bytes.
    /// </summary>
    public long ReadAheadCharge => Poison is { } poison
        ? ReadAhead.Charge(poison.ConsumerRecord)
        : ReadAhead.Charge(ByteCount, Count, readAtConsume: false) + _bytes.Capacity;

    /// <summary>A batch copied its records' bytes as it took them: kept, it only says what it counts.</summary>
    public override void Keep() => ReadAheadBytes = ReadAheadCharge;

    public override void Release()
    {
        Activity?.Dispose();
        ReleaseBytes();
    }

    /// <summary>For log lines and messages: <c>orders [3] @100..199 (100 records)</c>, or where a batch across partitions starts.</summary>
    public string Describe()
    {
        if (Poison is not null || _records.Count == 0)
        {
            return PositionText.Of(Position);
        }

        ConsumeResult<TKey, TValue> first = _records[0];
        ConsumeResult<TKey, TValue> last = _records[_records.Count - 1];
        if (_records.Count == 1)
        {
            return PositionText.Of(first.Topic, first.Partition, first.Offset);
        }

        string count = _records.Count.ToString(CultureInfo.InvariantCulture);
        return _records.TrueForAll(r => IsOf(r, first.Topic, first.Partition))
            ? PositionText.Of(first.Topic, first.Partition, first.Offset)
                + ".." + last.Offset.Value.ToString(CultureInfo.InvariantCulture) + " (" + count + " records)"
            : "a batch of "
                + count + " records from several partitions, from "
                + PositionText.Of(first.Topic, first.Partition, first.Offset);
    }

    private static bool IsOf(ConsumeResult<TKey, TValue> record, string topic, Partition partition) =>
        record.Partition == partition && string.Equals(record.Topic, topic, StringComparison.Ordinal);

    private static bool Holds(List<ConsumeResult<TKey, TValue>> records, string topic, Partition partition)
    {
        foreach (ConsumeResult<TKey, TValue> record in records)
        {
            if (IsOf(record, topic, partition))
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>
    /// One record of each partition among those from <paramref name="from"/> on: its first, or its last (then walking
    /// from the end).
    /// </summary>
    private List<ConsumeResult<TKey, TValue>> OnePerPartition(int from, bool lastOfEach)
    {
        var found = new List<ConsumeResult<TKey, TValue>>(1);
        for (int n = from; n < _records.Count; n++)
        {
            ConsumeResult<TKey, TValue> record = _records[lastOfEach ? _records.Count - 1 - (n - from) : n];
            if (!Holds(found, record.Topic, record.Partition))
            {
                found.Add(record);
            }
        }

        return found;
    }

    public IEnumerator<ConsumeResult<TKey, TValue>> GetEnumerator() => _records.GetEnumerator();

    IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();
}
