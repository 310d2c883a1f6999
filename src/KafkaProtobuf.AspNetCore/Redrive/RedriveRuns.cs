using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.AspNetCore.Json;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Redrive;
using Microsoft.Extensions.Logging;

namespace KafkaProtobuf.AspNetCore.Redrive;

/// <summary>
/// The page's redrives, by the library's <see cref="RedrivePlans"/>: a dry run first (what would be written, nothing
/// written or committed) leaves a plan; a click runs that plan, exactly what it showed, once (a stopped run may be
/// resumed, never a completed one, never two of one topic and filters at once: the plan's own refusals); each run
/// logged with who started it and, at its end, the plan's counts. The plan is the run's handle: its state, counts and
/// failure are what the page shows.
/// </summary>
internal sealed class RedriveRuns(ClientConfig kafka, ProvenanceKeys? keys, ILogger logger, CancellationToken stopping)
{
    private const int KeptPlans = 50;

    private readonly RedrivePlans _plans = new(KeptPlans);
    private readonly Dictionary<string, string> _startedBy = new(StringComparer.Ordinal); // plan id → who last ran it

    /// <summary>What a redrive with these filters would write now: the plan's dry run.</summary>
    /// <exception cref="ArgumentException">A filter is not valid (the message says which).</exception>
    /// <exception cref="InvalidOperationException">The topic does not exist.</exception>
    /// <exception cref="KafkaException">Kafka did not answer.</exception>
    public async Task<DryRunView> DryRunAsync(RedriveRequest request, CancellationToken cancellationToken)
    {
        RedrivePlan plan = await _plans.PlanAsync(kafka, OptionsOf(request), cancellationToken).ConfigureAwait(false);
        return new DryRunView
        {
            PlanId = plan.Id,
            Topic = plan.DeadLetterTopic,
            Filters = BoundedText.Cut(plan.Filters, 1000),
            WouldWrite = plan.DryRun.Written,
            SkippedByFilter = plan.DryRun.SkippedByFilter,
            SkippedForLoops = plan.DryRun.SkippedForLoops,
            SkippedWithoutSource = plan.DryRun.SkippedWithoutSource,
            SkippedUnverified = plan.DryRun.SkippedUnverified,
            Items = plan.DeadLetters.Select(entry => new DryRunItem
            {
                Partition = entry.Position.Partition.Value,
                Offset = entry.Position.Offset.Value,
                Source = BoundedText.Cut(entry.DescribeSource(), 500),
                Provenance = entry.Provenance.ToString().ToLowerInvariant(), // none, unchecked, verified, unverified
                Code = entry.ErrorCode is null ? null : BoundedText.Cut(entry.ErrorCode, 200),
                Outcome = RedriveOutcomes.Describe(entry.Outcome, dryRun: true),
            }).OrderBy(i => i.Partition).ThenBy(i => i.Offset).ToList(),
            ItemsCut = plan.HasMoreDeadLetters,
        };
    }

    /// <summary>Runs the plan a dry run left; null with the reason, worded by the library, when it may not run.</summary>
    public RunView? Start(string planId, string user, out string? refusal)
    {
        RedrivePlan? plan = _plans.Find(planId);
        RedriveRefusal refused = plan?.Refusal ?? RedriveRefusal.NoPlan;
        if (refused != RedriveRefusal.None)
        {
            refusal = RedriveOutcomes.Describe(refused);
            return null;
        }

        Task<RedriveSummary> running;
        try
        {
            running = plan!.RunAsync(stopping);
        }
        catch (InvalidOperationException e)
        {
            refusal = e.Message; // refused meanwhile, worded as RedrivePlan.Refusal is
            return null;
        }

        var kept = new HashSet<string>(_plans.GetPlans().Select(p => p.Id), StringComparer.Ordinal);
        lock (_startedBy)
        {
            _startedBy[plan.Id] = user;
            foreach (string gone in _startedBy.Keys.Where(id => !kept.Contains(id)).ToList())
            {
                _startedBy.Remove(gone); // its plan left the store
            }
        }

        refusal = null;
        string filters = BoundedText.Cut(plan.Filters, 1000);
        OperationsLog.RedriveStarted(logger, plan.Id, user, plan.DeadLetterTopic, filters, plan.DryRun.Written);
        _ = EndedAsync(plan, user, running);
        return View(plan);
    }

    /// <summary>The plans that were run, newest first.</summary>
    public IReadOnlyList<RunView> Runs() =>
        _plans.GetPlans().Where(p => p.StartedAt is not null).OrderByDescending(p => p.StartedAt).Select(View).ToList();

    private RunView View(RedrivePlan plan)
    {
        string user;
        lock (_startedBy)
        {
            user = _startedBy.TryGetValue(plan.Id, out string? by) ? by : string.Empty;
        }

        return new RunView
        {
            Id = plan.Id,
            PlanId = plan.Id,
            Topic = plan.DeadLetterTopic,
            Filters = BoundedText.Cut(plan.Filters, 1000),
            User = user,
            State = plan.State.ToString().ToLowerInvariant(),
            Written = plan.Written,
            Skipped = plan.Skipped,
            Failed = plan.Failed,
            Planned = plan.DryRun.Written,
            StartedAt = plan.StartedAt ?? default,
            EndedAt = plan.EndedAt,
            Failure = plan.Failure is null ? null : BoundedText.Cut(plan.Failure, 500),
        };
    }

    private async Task EndedAsync(RedrivePlan plan, string user, Task<RedriveSummary> running)
    {
        try
        {
            await running.ConfigureAwait(false);
        }
        catch (Exception)
        {
            // The plan keeps what failed (RedrivePlan.Failure): logged below, shown by the page.
        }

        string state = plan.State.ToString().ToLowerInvariant();
        OperationsLog.RedriveEnded(logger, plan.Id, user, plan.DeadLetterTopic, state, plan.Written, plan.Skipped, plan.Failed, plan.Failure);
    }

    private RedriveOptions OptionsOf(RedriveRequest request)
    {
        if (string.IsNullOrWhiteSpace(request.Topic))
        {
            throw new ArgumentException("A dead-letter topic is needed.");
        }

        return new RedriveOptions
        {
            DeadLetterTopic = request.Topic,
            SourceTopic = Blank(request.SourceTopic),
            ErrorCode = Blank(request.ErrorCode),
            Component = Blank(request.Component),
            Since = request.Since,
            Until = request.Until,
            Key = Blank(request.Key) is { } key ? Encoding.UTF8.GetBytes(key) : null,
            ProvenanceKeys = keys,
        };
    }

    private static string? Blank(string? text) => string.IsNullOrWhiteSpace(text) ? null : text;
}
