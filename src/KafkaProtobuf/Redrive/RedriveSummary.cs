using System.Collections.Generic;

namespace KafkaProtobuf.Redrive;

/// <summary>What a redrive did: how many dead letters it wrote back and why it left the others.</summary>
public sealed class RedriveSummary
{
    private readonly Dictionary<RedriveOutcome, long> _counts = new();

    /// <summary>Written back (in a dry run: would have been).</summary>
    public long Written => Count(RedriveOutcome.Written);

    /// <summary>Left alone because a filter did not match.</summary>
    public long SkippedByFilter => Count(RedriveOutcome.SkippedByFilter);

    /// <summary>Left alone because they were redriven <see cref="RedriveOptions.MaxRedrives"/> times already.</summary>
    public long SkippedForLoops => Count(RedriveOutcome.SkippedForLoops);

    /// <summary>Left alone because they carry no source header.</summary>
    public long SkippedWithoutSource => Count(RedriveOutcome.SkippedWithoutSource);

    /// <summary>Left alone because a block their source rests on is not believed (<see cref="RedriveOutcome.SkippedUnverified"/>).</summary>
    public long SkippedUnverified => Count(RedriveOutcome.SkippedUnverified);

    /// <summary>Not written because the write failed (the run stopped; they are redriven by the next run).</summary>
    public long Failed => Count(RedriveOutcome.Failed);

    /// <summary>Whether it was a dry run (nothing written, nothing committed).</summary>
    public bool DryRun { get; internal set; }

    /// <summary>Whether it read every dead letter there was when it started (false: stopped early, by cancellation or a failure).</summary>
    public bool Completed { get; internal set; }

    /// <summary>Why it did not complete: a write failed, or its progress could not be committed (the next run writes those records again).</summary>
    public string? Failure { get; internal set; }

    /// <inheritdoc/>
    public override string ToString() =>
        (DryRun ? "dry run: would write " : "written ") + Written + ", skipped by filter " + SkippedByFilter + ", skipped for loops " + SkippedForLoops
        + ", skipped without source " + SkippedWithoutSource + ", skipped unverified " + SkippedUnverified + ", failed " + Failed + (Completed ? string.Empty : " (stopped early)");

    internal void Add(RedriveOutcome outcome) => _counts[outcome] = Count(outcome) + 1;

    private long Count(RedriveOutcome outcome) => _counts.TryGetValue(outcome, out long count) ? count : 0;
}
