using System;
using System.Threading;
using KafkaProtobuf.AspNetCore.Json;
using KafkaProtobuf.Redrive;

namespace KafkaProtobuf.AspNetCore.Redrive;

/// <summary>One run of a plan started from the page: who started it and when, and its counts as it goes (written by the run, read by the page).</summary>
internal sealed class PageRedriveRun(string id, RedrivePlan plan, string user, DateTimeOffset startedAt)
{
    private long _written;
    private long _skipped;
    private long _failed;

    public string Id { get; } = id;

    public RedrivePlan Plan { get; } = plan;

    public string User { get; } = user;

    public DateTimeOffset StartedAt { get; } = startedAt;

    public DateTimeOffset? EndedAt { get; private set; }

    /// <summary>running, completed, or stopped (its plan can be run again: it resumes).</summary>
    public string State { get; private set; } = "running";

    public string? Failure { get; private set; }

    public bool Running => EndedAt is null;

    public long Written => Interlocked.Read(ref _written);

    public long Skipped => Interlocked.Read(ref _skipped);

    public long Failed => Interlocked.Read(ref _failed);

    public void Counted(RedriveOutcome outcome)
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
    }

    public void Ended(DateTimeOffset at, bool completed, string? failure)
    {
        Failure = failure;
        State = completed ? "completed" : "stopped";
        EndedAt = at;
    }

    public RunView View() => new()
    {
        Id = Id,
        PlanId = Plan.Id,
        Topic = Plan.DeadLetterTopic,
        Filters = BoundedText.Cut(Plan.Filters, 1000),
        User = User,
        State = State,
        Written = Written,
        Skipped = Skipped,
        Failed = Failed,
        Planned = Plan.DryRun.Written,
        StartedAt = StartedAt,
        EndedAt = EndedAt,
        Failure = Failure,
    };
}
