using System;

namespace KafkaProtobuf.Hosting.Scheduling;

/// <summary>The scheduler's limits and delays.</summary>
internal sealed class SchedulerSettings
{
    // Per-key mode: key groups per partition. More groups than handlers, so that few keys share a group by chance.
    private const int KeyGroupsPerHandler = 4;

    public int MaxConcurrentHandlers { get; set; } = 1;

    /// <summary>The budget of records taken and not yet concluded, across partitions (<see cref="ReadAhead"/>).</summary>
    public long MaxReadAheadBytes { get; set; } = 64L * 1024 * 1024;

    /// <summary>1 in partition order; in per-key order, several, so that records of different keys run at once.</summary>
    public int SequencesPerPartition { get; set; } = 1;

    public TimeSpan ReadAgainDelay { get; set; } = TimeSpan.FromSeconds(1);

    public TimeSpan RevokeTimeout { get; set; } = TimeSpan.FromSeconds(30);

    /// <summary>The settings of a consumer: <paramref name="perKey"/> spreads each partition's keys over several sequences.</summary>
    public static SchedulerSettings Of(int maxConcurrentHandlers, bool perKey, long maxReadAheadBytes, TimeSpan readAgainDelay, TimeSpan revokeTimeout) => new()
    {
        MaxConcurrentHandlers = maxConcurrentHandlers,
        MaxReadAheadBytes = maxReadAheadBytes,
        SequencesPerPartition = perKey ? KeyGroupsPerHandler * maxConcurrentHandlers : 1,
        ReadAgainDelay = readAgainDelay,
        RevokeTimeout = revokeTimeout,
    };
}
