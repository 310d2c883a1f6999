using System;
using System.Collections.Generic;
using System.Globalization;
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
/// The page's redrives: a dry run first (what would be written, nothing written or committed), which leaves a plan; a
/// run of that plan, once, and never while a run of the same topic and filters goes on (a second click is refused, not
/// queued); each run logged with who started it and, at its end, its counts. The library's
/// <see cref="DeadLetterRedrive"/> does the work, with the progress group the command line uses.
/// </summary>
internal sealed class RedriveRuns(ClientConfig kafka, ILogger logger, TimeProvider time, CancellationToken stopping)
{
    /// <summary>How many dead letters a dry run lists one by one (those its filters select).</summary>
    internal const int ListedItems = 200;

    private const int KeptPlans = 50;
    private const int KeptRuns = 50;

    private readonly object _gate = new();
    private readonly List<RedrivePlan> _plans = [];
    private readonly List<PageRedriveRun> _runs = [];

    /// <summary>What a redrive with these filters would write now.</summary>
    /// <exception cref="ArgumentException">A filter is not valid (the message says which).</exception>
    public async Task<DryRunView> DryRunAsync(RedriveRequest request, CancellationToken cancellationToken)
    {
        RedriveOptions options = OptionsOf(request, dryRun: true, runId: null);
        var items = new List<DryRunItem>();
        long seen = 0;
        RedriveSummary summary = await DeadLetterRedrive.RunAsync(
            kafka,
            options,
            (letter, outcome) =>
            {
                // what the filters leave out is counted, not listed: the list is what the run would touch
                if (outcome != RedriveOutcome.SkippedByFilter && Interlocked.Increment(ref seen) <= ListedItems)
                {
                    lock (items)
                    {
                        items.Add(new DryRunItem
                        {
                            Partition = letter.Record.Partition.Value,
                            Offset = letter.Record.Offset.Value,
                            Source = letter.SourceTopic is null ? null : BoundedText.Cut(PositionText.Of(letter.SourceTopic, letter.SourcePartition ?? -1, letter.SourceOffset ?? Offset.Unset), 300),
                            Code = letter.ErrorCode is null ? null : BoundedText.Cut(letter.ErrorCode, 200),
                            Outcome = outcome switch
                            {
                                RedriveOutcome.Written => "would write",
                                RedriveOutcome.SkippedForLoops => "skip: redriven too often",
                                RedriveOutcome.SkippedWithoutSource => "skip: no source topic",
                                _ => "would fail",
                            },
                        });
                    }
                }
            },
            cancellationToken).ConfigureAwait(false);
        if (!summary.Completed)
        {
            throw new KafkaException(new Error(ErrorCode.Local_Fail, "the dry run did not complete: " + BoundedText.Cut(summary.Failure, 500)));
        }

        var plan = new RedrivePlan(Guid.NewGuid().ToString("N"), request, FiltersOf(request), summary.Written);
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
            Topic = request.Topic,
            Filters = plan.Filters,
            WouldWrite = summary.Written,
            SkippedByFilter = summary.SkippedByFilter,
            SkippedForLoops = summary.SkippedForLoops,
            SkippedWithoutSource = summary.SkippedWithoutSource,
            Items = items.OrderBy(i => i.Partition).ThenBy(i => i.Offset).ToList(),
            ItemsCut = seen > ListedItems,
        };
    }

    /// <summary>Starts the redrive a dry run planned; null with the reason when it may not start.</summary>
    public PageRedriveRun? Start(string planId, string user, out string? refusal)
    {
        PageRedriveRun run;
        lock (_gate)
        {
            RedrivePlan? plan = _plans.FirstOrDefault(p => p.Id == planId);
            if (plan is null)
            {
                refusal = "No dry run with that id: run a dry run first (dry runs are kept in this process for the last " + KeptPlans + ").";
                return null;
            }

            if (plan.RunId is { } already)
            {
                refusal = "This dry run was already redriven (run " + already + "): run a dry run again to see what is left.";
                return null;
            }

            if (_runs.FirstOrDefault(r => r.Running && r.Plan.Key == plan.Key) is { } running)
            {
                refusal = "A redrive of this topic with these filters is running (run " + running.Id + ", started by " + running.User + ").";
                return null;
            }

            run = new PageRedriveRun(Guid.NewGuid().ToString("N"), plan, user, time.GetUtcNow());
            plan.RunId = run.Id;
            _runs.Add(run);
            if (_runs.Count > KeptRuns && _runs.FirstOrDefault(r => !r.Running) is { } oldest)
            {
                _runs.Remove(oldest);
            }
        }

        refusal = null;
        OperationsLog.RedriveStarted(logger, run.Id, user, run.Plan.Request.Topic, run.Plan.Filters, run.Plan.WouldWrite);
        _ = Task.Run(() => ExecuteAsync(run), CancellationToken.None);
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

    private async Task ExecuteAsync(PageRedriveRun run)
    {
        try
        {
            RedriveSummary summary = await DeadLetterRedrive.RunAsync(
                kafka, OptionsOf(run.Plan.Request, dryRun: false, run.Id), (_, outcome) => run.Counted(outcome), stopping).ConfigureAwait(false);
            run.Ended(time.GetUtcNow(), summary.Completed, summary.Failure is null ? null : BoundedText.Cut(summary.Failure, 500));
        }
        catch (Exception e)
        {
            run.Ended(time.GetUtcNow(), completed: false, BoundedText.Describe(e));
        }

        OperationsLog.RedriveEnded(logger, run.Id, run.User, run.Plan.Request.Topic, run.State, run.Written, run.Skipped, run.Failed, run.Failure);
    }

    private static RedriveOptions OptionsOf(RedriveRequest request, bool dryRun, string? runId)
    {
        if (string.IsNullOrWhiteSpace(request.Topic))
        {
            throw new ArgumentException("A dead-letter topic is needed.");
        }

        var options = new RedriveOptions
        {
            DeadLetterTopic = request.Topic,
            SourceTopic = Blank(request.SourceTopic),
            ErrorCode = Blank(request.ErrorCode),
            Component = Blank(request.Component),
            Since = request.Since,
            Until = request.Until,
            Key = Blank(request.Key) is { } key ? Encoding.UTF8.GetBytes(key) : null,
            DryRun = dryRun,
        };
        if (runId is not null)
        {
            options.RunId = runId;
        }

        return options;
    }

    private static string? Blank(string? text) => string.IsNullOrWhiteSpace(text) ? null : text;

    private static string FiltersOf(RedriveRequest request)
    {
        var filters = new List<string>();
        Add("source", request.SourceTopic);
        Add("code", request.ErrorCode);
        Add("component", request.Component);
        Add("since", request.Since?.ToString("O", CultureInfo.InvariantCulture));
        Add("until", request.Until?.ToString("O", CultureInfo.InvariantCulture));
        Add("key", request.Key);
        return filters.Count == 0 ? "(none: every dead letter)" : string.Join(", ", filters);

        void Add(string name, string? value)
        {
            if (Blank(value) is { } set)
            {
                filters.Add(name + "=" + BoundedText.Cut(set, 200));
            }
        }
    }
}
