using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;

namespace KafkaProtobuf.Redrive;

/// <summary>
/// A redrive shown before it is done (<see cref="DeadLetterRedrive.PlanAsync"/>): its dry run's counts and dead letters,
/// and a run that writes exactly that: the same filters, up to where the dry run read, once. A run that stops
/// (cancelled, a write or commit failed) resumes where it stopped when run again; a run that completed does not run
/// again. Two plans of one dead-letter topic with the same filters (one progress group) never run at once in a
/// process. Thread-safe: a page can show its progress while it runs.
/// </summary>
public sealed class RedrivePlan
{
    /// <summary>How many of its dead letters a plan lists one by one: 200 (<see cref="DeadLetters"/>); its counts cover all.</summary>
    public static int MaxListedDeadLetters { get; } = 200;

    // The progress groups of the plans running in this process: two runs on one group would write records twice.
    private static readonly HashSet<string> RunningGroups = new(StringComparer.Ordinal);

    private readonly ClientConfig _kafka;
    private readonly RedriveOptions _options;
    private readonly IReadOnlyDictionary<int, long> _ends;
    private readonly object _gate = new();
    private RedrivePlanState _state = RedrivePlanState.Planned;
    private RedriveSummary? _result;
    private DateTimeOffset? _startedAt;
    private DateTimeOffset? _endedAt;
    private string? _failure;
    private long _written;
    private long _skipped;
    private long _failed;

    internal RedrivePlan(ClientConfig kafka, RedriveOptions options, RedriveSummary dryRun, List<RedrivePlanEntry> deadLetters, bool deadLettersCut, IReadOnlyDictionary<int, long> ends)
    {
        _kafka = kafka;
        _options = options;
        _ends = ends;
        DryRun = dryRun;
        DeadLetters = deadLetters.AsReadOnly();
        HasMoreDeadLetters = deadLettersCut;
    }

    /// <summary>The plan's id, which its run writes in <see cref="RedriveHeaderNames.Run"/> (<see cref="RedriveOptions.RunId"/>).</summary>
    public string Id => _options.RunId;

    /// <summary>The dead-letter topic it reads.</summary>
    public string DeadLetterTopic => _options.DeadLetterTopic;

    /// <summary>Its filters, as one line: <c>source=orders, code=UnknownMagicByte</c>, or <c>none</c>.</summary>
    public string Filters => _options.FiltersLine;

    /// <summary>What the dry run found: how many dead letters the run will write (<see cref="RedriveSummary.Written"/>) and leave.</summary>
    public RedriveSummary DryRun { get; }

    /// <summary>
    /// The first <see cref="MaxListedDeadLetters"/> dead letters the run will touch (write back, or leave for a reason
    /// other than a filter), in the order read.
    /// </summary>
    public IReadOnlyList<RedrivePlanEntry> DeadLetters { get; }

    /// <summary>Whether the dry run read more such dead letters than <see cref="DeadLetters"/> lists.</summary>
    public bool HasMoreDeadLetters { get; }

    /// <summary>Where the plan is: planned, running, stopped (resumable) or completed.</summary>
    public RedrivePlanState State
    {
        get
        {
            lock (_gate)
            {
                return _state;
            }
        }
    }

    /// <summary>Why it may not run now, or <see cref="RedriveRefusal.None"/> (<see cref="RedriveOutcomes.Describe(RedriveRefusal)"/> words it).</summary>
    public RedriveRefusal Refusal
    {
        get
        {
            lock (_gate)
            {
                return RefusalNow(_options.EffectiveGroupId);
            }
        }
    }

    /// <summary>When its last run started, or null before it ran.</summary>
    public DateTimeOffset? StartedAt
    {
        get
        {
            lock (_gate)
            {
                return _startedAt;
            }
        }
    }

    /// <summary>When its last run ended, or null while it runs or before it ran.</summary>
    public DateTimeOffset? EndedAt
    {
        get
        {
            lock (_gate)
            {
                return _endedAt;
            }
        }
    }

    /// <summary>Why its last run did not complete (a write or commit failed, Kafka could not be asked), or null.</summary>
    public string? Failure
    {
        get
        {
            lock (_gate)
            {
                return _failure;
            }
        }
    }

    /// <summary>Dead letters its runs have written back so far.</summary>
    public long Written => Interlocked.Read(ref _written);

    /// <summary>Dead letters its runs have left so far (a filter, the loop limit, no source, a source not believed).</summary>
    public long Skipped => Interlocked.Read(ref _skipped);

    /// <summary>Writes that failed in its runs so far (each stops its run).</summary>
    public long Failed => Interlocked.Read(ref _failed);

    /// <summary>What its last run did, once one has ended.</summary>
    public RedriveSummary? Result
    {
        get
        {
            lock (_gate)
            {
                return _result;
            }
        }
    }

    /// <summary>Runs the plan (or resumes its stopped run) on a thread of the pool.</summary>
    /// <returns>What the run did.</returns>
    /// <exception cref="InvalidOperationException">The plan may not run (<see cref="Refusal"/>: it is running or completed, or a plan with its topic and filters is running in this process), worded as <see cref="RedriveOutcomes.Describe(RedriveRefusal)"/> words it.</exception>
    public Task<RedriveSummary> RunAsync() => RunAsync(null, CancellationToken.None);

    /// <summary>Runs the plan (or resumes its stopped run) on a thread of the pool.</summary>
    /// <param name="cancellationToken">Stops the run early: what was written is acknowledged and committed first, and the plan can be run again.</param>
    /// <returns>What the run did.</returns>
    /// <exception cref="InvalidOperationException">The plan may not run (<see cref="Refusal"/>: it is running or completed, or a plan with its topic and filters is running in this process), worded as <see cref="RedriveOutcomes.Describe(RedriveRefusal)"/> words it.</exception>
    public Task<RedriveSummary> RunAsync(CancellationToken cancellationToken) => RunAsync(null, cancellationToken);

    /// <summary>Runs the plan (or resumes its stopped run) on a thread of the pool, telling of each dead letter.</summary>
    /// <param name="onDeadLetter">Told of each dead letter read and what was done with it (on the run's thread; keep it short).</param>
    /// <param name="cancellationToken">Stops the run early: what was written is acknowledged and committed first, and the plan can be run again.</param>
    /// <returns>What the run did.</returns>
    /// <exception cref="InvalidOperationException">The plan may not run (<see cref="Refusal"/>: it is running or completed, or a plan with its topic and filters is running in this process), worded as <see cref="RedriveOutcomes.Describe(RedriveRefusal)"/> words it.</exception>
    public Task<RedriveSummary> RunAsync(Action<DeadLetter, RedriveOutcome>? onDeadLetter, CancellationToken cancellationToken)
    {
        string group = _options.EffectiveGroupId;
        lock (_gate)
        {
            RedriveRefusal refusal = RefusalNow(group);
            if (refusal != RedriveRefusal.None)
            {
                throw new InvalidOperationException(RedriveOutcomes.Describe(refusal));
            }

            lock (RunningGroups)
            {
                if (!RunningGroups.Add(group))
                {
                    // Another plan of this group started since the check: the add is what decides, atomically.
                    throw new InvalidOperationException(RedriveOutcomes.Describe(RedriveRefusal.SameFiltersRunning));
                }
            }

            _state = RedrivePlanState.Running;
            _startedAt = DateTimeOffset.UtcNow;
            _endedAt = null;
            _failure = null;
        }

        return Task.Run(() => Run(onDeadLetter, group, cancellationToken), CancellationToken.None);
    }

    /// <inheritdoc/>
    public override string ToString() =>
        "redrive of " + DeadLetterTopic + " (filters: " + Filters + "): " + State.ToString().ToLowerInvariant() + "; the dry run " + DryRun;

    /// <summary>Under <see cref="_gate"/>: why it may not run now.</summary>
    private RedriveRefusal RefusalNow(string group)
    {
        if (_state is RedrivePlanState.Running or RedrivePlanState.Completed)
        {
            return _state == RedrivePlanState.Running ? RedriveRefusal.Running : RedriveRefusal.Completed;
        }

        lock (RunningGroups)
        {
            return RunningGroups.Contains(group) ? RedriveRefusal.SameFiltersRunning : RedriveRefusal.None;
        }
    }

    private RedriveSummary Run(Action<DeadLetter, RedriveOutcome>? onDeadLetter, string group, CancellationToken cancellationToken)
    {
        RedrivePlanState ended = RedrivePlanState.Stopped;
        try
        {
            RedriveSummary summary = DeadLetterRedrive.Execute(_kafka, _options, Counted, _ends, cancellationToken).Summary;
            ended = summary.Completed && summary.Failure is null ? RedrivePlanState.Completed : RedrivePlanState.Stopped;
            lock (_gate)
            {
                _result = summary;
                _failure = summary.Failure;
            }

            return summary;
        }
        catch (Exception e)
        {
            lock (_gate)
            {
                _failure = e is OperationCanceledException ? "stopped before it began" : BoundedText.Describe(e);
            }

            throw;
        }
        finally
        {
            lock (RunningGroups)
            {
                RunningGroups.Remove(group);
            }

            lock (_gate)
            {
                _state = ended;
                _endedAt = DateTimeOffset.UtcNow;
            }
        }

        void Counted(DeadLetter deadLetter, RedriveOutcome outcome)
        {
            switch (outcome)
            {
                case RedriveOutcome.Written:
                    Interlocked.Increment(ref _written);
                    break;
                case RedriveOutcome.Failed:
                    Interlocked.Increment(ref _failed);
                    break;
                default:
                    Interlocked.Increment(ref _skipped);
                    break;
            }

            onDeadLetter?.Invoke(deadLetter, outcome);
        }
    }
}
