using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.AspNetCore.Json;
using KafkaProtobuf.Redrive;
using Microsoft.Extensions.Logging;

namespace KafkaProtobuf.AspNetCore.Redrive;

/// <summary>
/// The page's redrives, by the library's <see cref="RedrivePlan"/>: a dry run first (what would be written, nothing
/// written or committed) leaves a plan; a click runs that plan, exactly what it showed, once (a stopped run may be
/// resumed, never a completed one, never two of one topic and filters at once); each run logged with who started it and,
/// at its end, its counts. The plans and runs of the last while are kept in this process.
/// </summary>
internal sealed class RedriveRuns(ClientConfig kafka, ILogger logger, TimeProvider time, CancellationToken stopping)
{
    private const int KeptPlans = 50;
    private const int KeptRuns = 50;

    private readonly object _gate = new();
    private readonly List<RedrivePlan> _plans = [];
    private readonly List<PageRedriveRun> _runs = [];

    /// <summary>What a redrive with these filters would write now: the plan's dry run.</summary>
    /// <exception cref="ArgumentException">A filter is not valid (the message says which).</exception>
    /// <exception cref="InvalidOperationException">The topic does not exist.</exception>
    /// <exception cref="KafkaException">Kafka did not answer.</exception>
    public async Task<DryRunView> DryRunAsync(RedriveRequest request, CancellationToken cancellationToken)
    {
        RedrivePlan plan = await DeadLetterRedrive.PlanAsync(kafka, OptionsOf(request), cancellationToken).ConfigureAwait(false);
        lock (_gate)
        {
            _plans.Add(plan);
            if (_plans.Count > KeptPlans)
            {
                _plans.RemoveAt(0);
            }
        }

        return new DryRunView
        {
            PlanId = plan.Id,
            Topic = plan.DeadLetterTopic,
            Filters = BoundedText.Cut(plan.Filters, 1000),
            WouldWrite = plan.DryRun.Written,
            SkippedByFilter = plan.DryRun.SkippedByFilter,
            SkippedForLoops = plan.DryRun.SkippedForLoops,
            SkippedWithoutSource = plan.DryRun.SkippedWithoutSource,
            Items = plan.DeadLetters.Select(entry => new DryRunItem
            {
                Partition = entry.Position.Partition.Value,
                Offset = entry.Position.Offset.Value,
                Source = entry.SourceTopic is null ? null : BoundedText.Cut(PositionText.Of(entry.SourceTopic, entry.SourcePartition ?? -1, entry.SourceOffset ?? Offset.Unset), 300),
                Code = entry.ErrorCode is null ? null : BoundedText.Cut(entry.ErrorCode, 200),
                Outcome = RedriveOutcomes.Describe(entry.Outcome, dryRun: true),
            }).OrderBy(i => i.Partition).ThenBy(i => i.Offset).ToList(),
            ItemsCut = plan.DeadLettersCut,
        };
    }

    /// <summary>Runs the plan a dry run left; null with the reason when it may not run.</summary>
    public PageRedriveRun? Start(string planId, string user, out string? refusal)
    {
        RedrivePlan? plan;
        lock (_gate)
        {
            plan = _plans.FirstOrDefault(p => p.Id == planId);
        }

        if (plan is null)
        {
            refusal = "No dry run with that id: run a dry run first (dry runs are kept in this process for the last " + KeptPlans + ").";
            return null;
        }

        var run = new PageRedriveRun(Guid.NewGuid().ToString("N"), plan, user, time.GetUtcNow());
        Task<RedriveSummary> running;
        try
        {
            running = plan.RunAsync((_, outcome) => run.Counted(outcome), stopping);
        }
        catch (InvalidOperationException e)
        {
            refusal = plan.State switch
            {
                RedrivePlanState.Completed => "This dry run was already redriven: run a dry run again to see what is left.",
                RedrivePlanState.Running => "This dry run was already redriven: its run is going on.",
                _ => e.Message, // a run of the same topic and filters, from another dry run
            };
            return null;
        }

        lock (_gate)
        {
            _runs.Add(run);
            if (_runs.Count > KeptRuns && _runs.FirstOrDefault(r => !r.Running) is { } oldest)
            {
                _runs.Remove(oldest);
            }
        }

        refusal = null;
        string filters = BoundedText.Cut(plan.Filters, 1000);
        OperationsLog.RedriveStarted(logger, run.Id, user, plan.DeadLetterTopic, filters, plan.DryRun.Written);
        _ = EndedAsync(run, running);
        return run;
    }

    /// <summary>The runs kept, newest first.</summary>
    public IReadOnlyList<RunView> Runs()
    {
        lock (_gate)
        {
            return _runs.OrderByDescending(r => r.StartedAt).Select(r => r.View()).ToList();
        }
    }

    private async Task EndedAsync(PageRedriveRun run, Task<RedriveSummary> running)
    {
        try
        {
            RedriveSummary summary = await running.ConfigureAwait(false);
            run.Ended(time.GetUtcNow(), run.Plan.State == RedrivePlanState.Completed, summary.Failure is null ? null : BoundedText.Cut(summary.Failure, 500));
        }
        catch (Exception e)
        {
            run.Ended(time.GetUtcNow(), completed: false, BoundedText.Describe(e));
        }

        OperationsLog.RedriveEnded(logger, run.Id, run.User, run.Plan.DeadLetterTopic, run.State, run.Written, run.Skipped, run.Failed, run.Failure);
    }

    private static RedriveOptions OptionsOf(RedriveRequest request)
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
        };
    }

    private static string? Blank(string? text) => string.IsNullOrWhiteSpace(text) ? null : text;
}
