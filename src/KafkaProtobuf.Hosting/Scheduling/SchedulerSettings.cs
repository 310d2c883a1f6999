using System;

namespace KafkaProtobuf.Hosting;

/// <summary>The scheduler's limits and delays, from <see cref="KafkaProtobufConsumerOptions"/>.</summary>
internal sealed class SchedulerSettings
{
    // Per-key mode: key groups per partition. More groups than handlers, so that few keys share a group by chance.
    private const int KeyGroupsPerHandler = 4;

    public int MaxConcurrentRecords { get; set; } = 1;

    public int MaxQueuedRecordsPerPartition { get; set; } = 1_000;

    /// <summary>1 in partition order; in per-key order, several, so that records of different keys run at once.</summary>
    public int SequencesPerPartition { get; set; } = 1;

    public TimeSpan ReadAgainDelay { get; set; } = TimeSpan.FromSeconds(1);

    public TimeSpan RevokeTimeout { get; set; } = TimeSpan.FromSeconds(30);

    public static SchedulerSettings From(KafkaProtobufConsumerOptions options) => new()
    {
        MaxConcurrentRecords = options.MaxConcurrentRecords,
        MaxQueuedRecordsPerPartition = options.MaxQueuedRecordsPerPartition,
        SequencesPerPartition = options.HandlingOrder == HandlingOrder.Key ? KeyGroupsPerHandler * options.MaxConcurrentRecords : 1,
        ReadAgainDelay = options.ReadAgainDelay,
        RevokeTimeout = options.RevokeTimeout,
    };
}
