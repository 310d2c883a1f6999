using System.Diagnostics;
using Confluent.Kafka;

namespace KafkaProtobuf.Hosting;

/// <summary>A record in a lane: good (with its bytes, for a dead letter) or poison, and what the handler made of it.</summary>
internal sealed class LaneItem<TKey, TValue>(RecordSequence<TKey, TValue> sequence, int generation, ConsumeResult<TKey, TValue>? record, ConsumeException? poison, byte[]? key, byte[]? value)
{
    public RecordSequence<TKey, TValue> Sequence { get; } = sequence;

    public PartitionLane<TKey, TValue> Lane => Sequence.Lane;

    /// <summary>The lane's <see cref="PartitionLane{TKey, TValue}.Generation"/> when the record was taken.</summary>
    public int Generation { get; } = generation;

    public ConsumeResult<TKey, TValue>? Record { get; } = record;

    public ConsumeException? Poison { get; } = poison;

    public byte[]? Key { get; } = key;

    public byte[]? Value { get; } = value;

    public HandlerResult Result { get; set; }

    public Activity? Activity { get; set; }

    /// <summary>Loop thread only: its worker handed it back, so it may be concluded once every earlier record is.</summary>
    public bool Done { get; set; }

    /// <summary>It holds its sequence for the loop (set by the worker, under the lane's lock).</summary>
    public bool HoldsSequence { get; set; }

    /// <summary>Whether the loop has more to do than store its offset: a poison record, or a handler that did not complete.</summary>
    public bool NeedsLoop => Poison is not null || Result.Outcome != HandlerOutcome.Handled;

    public TopicPartitionOffset Position => Record?.TopicPartitionOffset ?? Poison!.ConsumerRecord.TopicPartitionOffset;
}
