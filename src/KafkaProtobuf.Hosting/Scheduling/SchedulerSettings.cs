using System;

namespace KafkaProtobuf.Hosting.Scheduling;

/// <summary>The scheduler's limits and delays.</summary>
internal sealed class SchedulerSettings
{
    // Per-key mode: key groups per partition. More groups than handlers, so that few keys share a group by chance.
    private const int KeyGroupsPerHandler = 4;

    public int MaxConcurrentHandlers { get; set; } = 1;

    /// <summary>1 in partition order; in per-key order, several, so that records of different keys run at once.</summary>
    public int SequencesPerPartition { get; set; } = 1;

    /// <summary>How long a partition waits before its record is read again, after a copy of it was not written.</summary>
    public TimeSpan ReadAgainDelay { get; set; } = TimeSpan.FromSeconds(1);

    public TimeSpan RevokeTimeout { get; set; } = TimeSpan.FromSeconds(30);

    /// <summary>The settings of a consumer: <paramref name="perKey"/> spreads each partition's keys over several sequences.</summary>
    public static SchedulerSettings Of(int maxConcurrentHandlers, bool perKey, TimeSpan readAgainDelay, TimeSpan revokeTimeout) => new()
    {
        MaxConcurrentHandlers = maxConcurrentHandlers,
        SequencesPerPartition = perKey ? KeyGroupsPerHandler * maxConcurrentHandlers : 1,
        ReadAgainDelay = readAgainDelay,
        RevokeTimeout = revokeTimeout,
    };
}
