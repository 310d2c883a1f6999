using System.Diagnostics;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Handling;
using KafkaProtobuf.Hosting.Scheduling;

namespace KafkaProtobuf.Hosting.Intake;

/// <summary>
/// A consumed record in partition-parallel mode: good, or poison; its own copy of its bytes once the scheduler keeps it
/// (its key and value read from them when a handler takes it, unless read at consume); its span.
/// </summary>
internal sealed class ParallelRecord<TKey, TValue> : ScheduledWork
{
    public ConsumeResult<TKey, TValue>? Record { get; private set; }

    /// <summary>What the handler is given: <see cref="Record"/>, or for a retry topic's record the same at the position it was first read from.</summary>
    public ConsumeResult<TKey, TValue>? HandlerView { get; private set; }

    /// <summary>
    /// Its key or value could not be read (its bytes are in the exception; no handler runs): consumed as poison, or, read
    /// when a handler took it, bad data or a writer's schema unavailable.
    /// </summary>
    public ConsumeException? Unread { get; set; }

    /// <summary>Its key and value bytes, copied when the scheduler kept it; null while the capture still holds them.</summary>
    public (byte[]? Key, byte[]? Value)? OwnBytes { get; set; }

    public Activity? Activity { get; set; }

    public static ParallelRecord<TKey, TValue> OfPoison(ConsumeException poison, bool perKey)
    {
        ConsumeResult<byte[], byte[]> raw = poison.ConsumerRecord;
        var record = new ParallelRecord<TKey, TValue> { Unread = poison };
        record.Place(raw.Topic, raw.Partition, raw.Offset, perKey ? Consuming.KeyHash.Of(raw.Message?.Key) : 0, needsHandler: false);
        return record;
    }

    /// <summary>
    /// Holds a good record (this object is reused for records the scheduler concluded at once); with
    /// <paramref name="failed"/>, one whose handler already failed for good, to be concluded with that and not handled again.
    /// </summary>
    public void Load(ConsumeResult<TKey, TValue> record, ConsumeResult<TKey, TValue> handlerView, uint keyHash, HandlerResult? failed = null)
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
}
