using System;
using System.Collections.Generic;

namespace KafkaProtobuf.AspNetCore.Json;

/// <summary>What a redrive of a dead-letter topic takes: the command line's filters.</summary>
internal sealed class RedriveRequest
{
    public string Topic { get; set; } = string.Empty;

    public string? SourceTopic { get; set; }

    public string? ErrorCode { get; set; }

    public string? Component { get; set; }

    public DateTimeOffset? Since { get; set; }

    public DateTimeOffset? Until { get; set; }

    /// <summary>Only records with this key (its UTF-8 bytes).</summary>
    public string? Key { get; set; }
}

/// <summary>A redrive to start: the dry run that showed it.</summary>
internal sealed class RunRequest
{
    public string PlanId { get; set; } = string.Empty;
}

/// <summary>What a dry run found: what a redrive with its filters would write, and a plan to run it.</summary>
internal sealed class DryRunView
{
    public string PlanId { get; set; } = string.Empty;

    public string Topic { get; set; } = string.Empty;

    public string Filters { get; set; } = string.Empty;

    public long WouldWrite { get; set; }

    public long SkippedByFilter { get; set; }

    public long SkippedForLoops { get; set; }

    public long SkippedWithoutSource { get; set; }

    /// <summary>Left because their source is not believed (a block that does not verify).</summary>
    public long SkippedUnverified { get; set; }

    public IReadOnlyList<DryRunItem> Items { get; set; } = [];

    /// <summary>More dead letters were looked at than <see cref="Items"/> lists.</summary>
    public bool ItemsCut { get; set; }
}

/// <summary>One dead letter in a dry run and what a redrive would do with it.</summary>
internal sealed class DryRunItem
{
    public int Partition { get; set; }

    public long Offset { get; set; }

    public string? Source { get; set; }

    /// <summary>How far its source is believed: none, unchecked, verified or unverified.</summary>
    public string Provenance { get; set; } = "none";

    public string? Code { get; set; }

    public string Outcome { get; set; } = string.Empty;
}

/// <summary>A redrive run: who started it, its filters, its progress or result.</summary>
internal sealed class RunView
{
    public string Id { get; set; } = string.Empty;

    /// <summary>The plan (dry run) it ran; a stopped run's plan can be run again.</summary>
    public string PlanId { get; set; } = string.Empty;

    public string Topic { get; set; } = string.Empty;

    public string Filters { get; set; } = string.Empty;

    public string User { get; set; } = string.Empty;

    /// <summary>running, completed or stopped (its plan resumes when run again).</summary>
    public string State { get; set; } = string.Empty;

    public long Written { get; set; }

    public long Skipped { get; set; }

    public long Failed { get; set; }

    /// <summary>What the dry run said it would write.</summary>
    public long Planned { get; set; }

    public DateTimeOffset StartedAt { get; set; }

    public DateTimeOffset? EndedAt { get; set; }

    public string? Failure { get; set; }
}

/// <summary>The redrive runs of this process, newest first.</summary>
internal sealed class RunsView
{
    public IReadOnlyList<RunView> Runs { get; set; } = [];
}
