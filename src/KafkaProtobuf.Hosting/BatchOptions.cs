using System;

namespace KafkaProtobuf.Hosting;

/// <summary>
/// How a hosted consumer with a batch handler (<c>HandleBatch</c>, <see cref="IBatchHandler{TKey, TValue}"/>) makes
/// its batches. Used only with a batch handler.
/// </summary>
public sealed class BatchOptions
{
    /// <summary>The most records in a batch. Default 100.</summary>
    public int MaxSize { get; set; } = 100;

    /// <summary>
    /// How long a batch's first record waits for more: then the batch is handed over however few records it holds, so
    /// that a quiet partition's records are never held back for records that may not come. Default 1 s.
    /// </summary>
    public TimeSpan MaxWait { get; set; } = TimeSpan.FromSeconds(1);

    /// <summary>
    /// Whether one batch may hold records of several partitions. Default <see langword="false"/>: each batch is one
    /// partition's, so several partitions' batches can be handled at once (<see cref="KafkaProtobufConsumerOptions.MaxConcurrentHandlers"/>
    /// counts batches) and a partition's progress never waits for another's. <see langword="true"/> fills batches faster
    /// when many partitions each carry little; batches are then handled one at a time (<c>MaxConcurrentHandlers</c> must be 1).
    /// </summary>
    public bool AcrossPartitions { get; set; }

    /// <summary>
    /// What happens once a batch has failed <see cref="HandlerFailureOptions.MaxAttempts"/> times (or
    /// <see cref="HandlerFailureOptions.Classify"/> said <see cref="HandlerFailureAction.DeadLetter"/>):
    /// <see cref="FailedBatchAction.Split"/> (the default) or <see cref="FailedBatchAction.WholeBatch"/>.
    /// </summary>
    public FailedBatchAction WhenBatchFails { get; set; } = FailedBatchAction.Split;
}
