using System;

namespace KafkaProtobuf.Redrive;

/// <summary>How a redrive's outcome for one dead letter, and a refusal to run a plan, are said: the one wording the tool, the operations page and the dashboard show.</summary>
public static class RedriveOutcomes
{
    /// <summary>What a redrive did, or in a dry run would do, with a dead letter: <c>written</c> / <c>would write</c>, <c>skipped: no source topic</c>, ...</summary>
    /// <param name="outcome">The outcome.</param>
    /// <param name="dryRun">Whether it was a dry run's.</param>
    /// <returns>A short phrase.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="outcome"/> is not a defined value.</exception>
    public static string Describe(RedriveOutcome outcome, bool dryRun) => outcome switch
    {
        RedriveOutcome.Written => dryRun ? "would write" : "written",
        RedriveOutcome.SkippedByFilter => "skipped: a filter leaves it out",
        RedriveOutcome.SkippedForLoops => "skipped: redriven MaxRedrives times already",
        RedriveOutcome.SkippedWithoutSource => "skipped: no source topic",
        RedriveOutcome.SkippedUnverified => "skipped: its source is not believed",
        RedriveOutcome.Failed => dryRun ? "would fail" : "failed: the write failed",
        _ => throw new ArgumentOutOfRangeException(nameof(outcome), outcome, "Not a redrive outcome."),
    };

    /// <summary>Why a plan may not run, in words: <c>This plan is running.</c>, …</summary>
    /// <param name="refusal">The refusal.</param>
    /// <returns>A sentence; empty for <see cref="RedriveRefusal.None"/>.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="refusal"/> is not a defined value.</exception>
    public static string Describe(RedriveRefusal refusal) => refusal switch
    {
        RedriveRefusal.None => string.Empty,
        RedriveRefusal.Running => "This plan is running.",
        RedriveRefusal.Completed => "This plan was run to its end: make a new plan (a dry run) to see what is left.",
        RedriveRefusal.SameFiltersRunning => "A redrive of this dead-letter topic with these filters is running in this process: wait for it to end.",
        RedriveRefusal.NoPlan => "No such plan here: make one first with a dry run (only the newest plans are kept, in this process).",
        _ => throw new ArgumentOutOfRangeException(nameof(refusal), refusal, "Not a redrive refusal."),
    };
}
