using System;
using System.Collections.Generic;
using System.Linq;
using Confluent.Kafka;

namespace KafkaProtobuf.Tests.EndToEnd.Chaos;

public enum FaultKind
{
    BrokerDownThenUp,
    LeadersMoved,
    FetchErrors,
    OffsetCommitErrors,
    SlowBroker,
    DeadLetterLeaderUnavailable,
    RegistryOutage,
    SecondMemberJoinsThenLeaves,
    MemberKilledAndReplaced,
}

/// <summary>
/// One fault of the schedule with what the seed chose for it: the broker, the partitions and where they move, how many
/// requests fail and with which error, how long a broker stays down or slow.
/// </summary>
public sealed record FaultStep(FaultKind Kind, int Broker, IReadOnlyList<(int Partition, int Shift)> Moves, ErrorCode Error, int Count, TimeSpan Hold)
{
    public string Describe() => Kind switch
    {
        FaultKind.BrokerDownThenUp => $"broker {Broker} down for {Hold.TotalSeconds:0.#} s, then up",
        FaultKind.LeadersMoved => "leaders moved: " + string.Join(", ", Moves.Select(m => $"partition {m.Partition} to the {Ordinal(m.Shift)} broker after its leader")),
        FaultKind.FetchErrors => $"next {Count} Fetch requests fail with {Error}",
        FaultKind.OffsetCommitErrors => $"next {Count} OffsetCommit requests fail with {Error}",
        FaultKind.SlowBroker => $"broker {Broker} answers {Hold.TotalMilliseconds:0} ms late for 3 s",
        FaultKind.DeadLetterLeaderUnavailable => $"dead-letter partition's leader unavailable: its Produce requests refused ({Error}), {Count} at first, more if no dead letter failed",
        FaultKind.RegistryOutage => $"registry down until a record meets the outage, then {Hold.TotalSeconds:0.#} s more",
        FaultKind.SecondMemberJoinsThenLeaves => "a second member joins, reads, then leaves (Close)",
        FaultKind.MemberKilledAndReplaced => "the first member is killed (no Close, no commit) and replaced",
        _ => Kind.ToString(),
    };

    private static string Ordinal(int n) => n == 1 ? "1st" : n == 2 ? "2nd" : n + "th";
}

/// <summary>Every <see cref="FaultKind"/> once, in an order and with parameters drawn from one seed, so a run can be replayed.</summary>
public static class FaultSchedule
{
    public static IReadOnlyList<FaultStep> Create(int seed, IReadOnlyList<int> brokers, int partitions)
    {
        var random = new Random(seed);
        int AnyBroker() => brokers[random.Next(brokers.Count)];
        ErrorCode[] fetchErrors = [ErrorCode.NotLeaderForPartition, ErrorCode.LeaderNotAvailable, ErrorCode.RequestTimedOut];
        ErrorCode[] commitErrors = [ErrorCode.NotCoordinatorForGroup, ErrorCode.GroupLoadInProgress, ErrorCode.RequestTimedOut];

        var steps = new List<FaultStep>();
        foreach (FaultKind kind in Enum.GetValues<FaultKind>())
        {
            steps.Add(kind switch
            {
                FaultKind.BrokerDownThenUp => new FaultStep(kind, AnyBroker(), [], ErrorCode.NoError, 0, TimeSpan.FromMilliseconds(random.Next(2_000, 4_001))),
                FaultKind.LeadersMoved => new FaultStep(kind, 0, MovedLeaders(random, brokers, partitions), ErrorCode.NoError, 0, TimeSpan.Zero),
                FaultKind.FetchErrors => new FaultStep(kind, 0, [], fetchErrors[random.Next(fetchErrors.Length)], random.Next(3, 9), TimeSpan.Zero),
                FaultKind.OffsetCommitErrors => new FaultStep(kind, 0, [], commitErrors[random.Next(commitErrors.Length)], random.Next(2, 6), TimeSpan.Zero),
                FaultKind.SlowBroker => new FaultStep(kind, AnyBroker(), [], ErrorCode.NoError, 0, TimeSpan.FromMilliseconds(random.Next(200, 801))),
                FaultKind.DeadLetterLeaderUnavailable => new FaultStep(kind, 0, [], ErrorCode.LeaderNotAvailable, random.Next(20, 41), TimeSpan.Zero),
                FaultKind.RegistryOutage => new FaultStep(kind, 0, [], ErrorCode.NoError, 0, TimeSpan.FromMilliseconds(random.Next(1_000, 3_001))),
                _ => new FaultStep(kind, 0, [], ErrorCode.NoError, 0, TimeSpan.Zero),
            });
        }

        // Fisher-Yates with the same generator: the order is part of what the seed replays.
        for (int i = steps.Count - 1; i > 0; i--)
        {
            int j = random.Next(i + 1);
            (steps[i], steps[j]) = (steps[j], steps[i]);
        }

        return steps;
    }

    private static List<(int, int)> MovedLeaders(Random random, IReadOnlyList<int> brokers, int partitions)
    {
        // Half the partitions, each to another broker: the n-th after its current leader, n drawn here.
        return Enumerable.Range(0, partitions).OrderBy(_ => random.Next()).Take(partitions / 2).Order()
            .Select(p => (p, random.Next(1, brokers.Count))).ToList();
    }
}
