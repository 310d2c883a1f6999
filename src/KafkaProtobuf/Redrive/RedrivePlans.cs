using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;

namespace KafkaProtobuf.Redrive;

/// <summary>
/// The redrive plans a process keeps between a dry run and its run, the newest first: a front-end (the operations page,
/// the dashboard) makes a plan here, shows it, and runs it later by its id or by its topic. The oldest plan that is not
/// running goes when there are more than <see cref="Capacity"/>. Thread-safe.
/// </summary>
public sealed class RedrivePlans
{
    private readonly object _gate = new();
    private readonly List<RedrivePlan> _plans = []; // oldest first

    /// <summary>A store that keeps the newest 50 plans.</summary>
    public RedrivePlans()
        : this(50)
    {
    }

    /// <summary>A store that keeps the newest <paramref name="capacity"/> plans.</summary>
    /// <param name="capacity">How many plans are kept, 1 or more.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="capacity"/> is below 1.</exception>
    public RedrivePlans(int capacity)
    {
        if (capacity < 1)
        {
            throw new ArgumentOutOfRangeException(nameof(capacity), capacity, "At least one plan is kept.");
        }

        Capacity = capacity;
    }

    /// <summary>How many plans are kept.</summary>
    public int Capacity { get; }

    /// <summary>Makes a plan (<see cref="DeadLetterRedrive.PlanAsync"/>, a dry run) and keeps it.</summary>
    /// <param name="kafka">How to reach the cluster.</param>
    /// <param name="options">What to redrive, and where. Copied.</param>
    /// <param name="cancellationToken">Stops the dry run.</param>
    /// <returns>The plan, kept.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="kafka"/> or <paramref name="options"/> is null (thrown at the call).</exception>
    /// <exception cref="ArgumentException">The options break a rule (thrown at the call).</exception>
    /// <exception cref="InvalidOperationException">The dead-letter topic does not exist.</exception>
    /// <exception cref="KafkaException">The cluster could not be asked.</exception>
    /// <exception cref="OperationCanceledException">Cancelled before the dry run read everything.</exception>
    public Task<RedrivePlan> PlanAsync(ClientConfig kafka, RedriveOptions options, CancellationToken cancellationToken = default)
    {
        Task<RedrivePlan> planning = DeadLetterRedrive.PlanAsync(kafka, options, cancellationToken);
        return KeepAsync(planning);
    }

    /// <summary>The plan with this id, if it is kept.</summary>
    /// <param name="planId">Its id (<see cref="RedrivePlan.Id"/>; from a request: anything at all).</param>
    /// <returns>The plan, or null (<see cref="RedriveRefusal.NoPlan"/>).</returns>
    public RedrivePlan? Find(string? planId)
    {
        lock (_gate)
        {
            return _plans.LastOrDefault(p => string.Equals(p.Id, planId, StringComparison.Ordinal));
        }
    }

    /// <summary>The newest plan of a dead-letter topic, if one is kept.</summary>
    /// <param name="deadLetterTopic">The topic.</param>
    /// <returns>The plan, or null (<see cref="RedriveRefusal.NoPlan"/>).</returns>
    public RedrivePlan? Latest(string? deadLetterTopic)
    {
        lock (_gate)
        {
            return _plans.LastOrDefault(p => string.Equals(p.DeadLetterTopic, deadLetterTopic, StringComparison.Ordinal));
        }
    }

    /// <summary>The plans kept, newest first.</summary>
    /// <returns>A copy of the list.</returns>
    public IReadOnlyList<RedrivePlan> GetPlans()
    {
        lock (_gate)
        {
            return Enumerable.Reverse(_plans).ToList().AsReadOnly();
        }
    }

    private async Task<RedrivePlan> KeepAsync(Task<RedrivePlan> planning)
    {
        RedrivePlan plan = await planning.ConfigureAwait(false);
        lock (_gate)
        {
            _plans.Add(plan);
            while (_plans.Count > Capacity && _plans.FindIndex(0, _plans.Count - 1, p => p.State != RedrivePlanState.Running) is int oldest and >= 0)
            {
                _plans.RemoveAt(oldest);
            }
        }

        return plan;
    }
}
