using System.Diagnostics;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Consuming;
using KafkaProtobuf.Hosting.Handling;
using KafkaProtobuf.Hosting.Scheduling;

namespace KafkaProtobuf.Hosting.Work;

/// <summary>
/// A consumed record in partition-parallel mode: good, or poison; its own copy of its bytes once the scheduler keeps it
/// (its key and value read from them when a handler takes it, unless read at consume); its span.
/// </summary>
internal sealed class RecordWork<TKey, TValue> : ScheduledWork
{
    private readonly RawBytesCapture<TKey> _keys;
    private readonly RawBytesCapture<TValue> _values;

    /// <param name="keys">Where the key's bytes are while the record is the one just consumed.</param>
    /// <param name="values">Where the value's bytes are while the record is the one just consumed.</param>
    public RecordWork(RawBytesCapture<TKey> keys, RawBytesCapture<TValue> values)
    {
        _keys = keys;
        _values = values;
    }

    public ConsumeResult<TKey, TValue>? Record { get; private set; }

    /// <summary>
    /// What the handler is given: <see cref="Record"/>, or for a retry topic's record the same at the position it was
    /// first read from.
    /// </summary>
    public ConsumeResult<TKey, TValue>? HandlerView { get; private set; }

    /// <summary>
    /// Its key or value could not be read (its bytes are in the exception; no handler runs): consumed as poison, or, read
    /// when a handler took it, bad data or a writer's schema unavailable.
    /// </summary>
    public ConsumeException? Unread { get; set; }

    /// <summary>Its key and value bytes, copied when the scheduler kept it; null while the capture still holds them.</summary>
    public (byte[]? Key, byte[]? Value)? OwnBytes { get; private set; }

    public Activity? Activity { get; set; }

    public static RecordWork<TKey, TValue> OfPoison(
        ConsumeException poison, bool perKey, RawBytesCapture<TKey> keys, RawBytesCapture<TValue> values)
    {
        ConsumeResult<byte[], byte[]> raw = poison.ConsumerRecord;
        var work = new RecordWork<TKey, TValue>(keys, values) { Unread = poison };
        work.Place(raw.Topic, raw.Partition, raw.Offset, perKey ? Consuming.KeyHash.Of(raw.Message?.Key) : 0, needsHandler: false);
        return work;
    }

    /// <summary>
    /// Holds a good record (this object is reused for records the scheduler concluded at once); with
    /// <paramref name="failed"/>, one whose handler already failed for good, to be concluded with that and not handled again.
    /// </summary>
    public void Load(
        ConsumeResult<TKey, TValue> record, ConsumeResult<TKey, TValue> handlerView, uint keyHash, HandlerResult? failed = null)
    {
        Record = record;
        HandlerView = handlerView;
        OwnBytes = null;
        Unread = null;
        Activity = null;
        Place(record.Topic, record.Partition, record.Offset, keyHash, needsHandler: failed is null);
        if (failed is { } result)
        {
            Result = result;
        }
    }

    /// <summary>
    /// The record outlives this consume: it takes its own copy of its bytes (for a possible dead letter) from the
    /// capture.
    /// </summary>
    public override void Keep()
    {
        if (Unread is { } poison)
        {
            // consumed as poison (one read when taken is never kept unread): its bytes are in its exception
            ReadAheadBytes = ReadAhead.Charge(poison.ConsumerRecord);
            return;
        }

        (byte[]? key, byte[]? value) = (_keys.ToArray(), _values.ToArray());
        OwnBytes = (key, value);
        ReadAheadBytes = ReadAhead.Charge(key, value, readAtConsume: !_values.ReadsLater);
    }

    public override void Release() => Activity?.Dispose();
}
