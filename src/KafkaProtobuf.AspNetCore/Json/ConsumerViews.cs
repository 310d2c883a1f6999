using System;
using System.Collections.Generic;

namespace KafkaProtobuf.AspNetCore.Json;

/// <summary>This process's hosted consumers, as the page shows them.</summary>
internal sealed class ConsumersView
{
    public DateTimeOffset At { get; set; }

    public IReadOnlyList<ConsumerView> Consumers { get; set; } = [];
}

/// <summary>One hosted consumer.</summary>
internal sealed class ConsumerView
{
    public string Name { get; set; } = string.Empty;

    public string? GroupId { get; set; }

    public IReadOnlyList<string> Topics { get; set; } = [];

    public string? DeadLetterTopic { get; set; }

    /// <summary>Starting, Running, Stopped or Failed.</summary>
    public string State { get; set; } = string.Empty;

    public string? Failure { get; set; }

    public string? MemberId { get; set; }

    public int RecordsInHandlers { get; set; }

    public int FailedAttempts { get; set; }

    public string? LastError { get; set; }

    public DateTimeOffset? LastErrorAt { get; set; }

    public long Lag { get; set; }

    public IReadOnlyList<PartitionView> Partitions { get; set; } = [];
}

/// <summary>One partition a consumer holds.</summary>
internal sealed class PartitionView
{
    public string Topic { get; set; } = string.Empty;

    public int Partition { get; set; }

    /// <summary>Null while unknown (nothing consumed or committed yet).</summary>
    public long? Position { get; set; }

    /// <summary>Null while unknown.</summary>
    public long? End { get; set; }

    /// <summary>Null while the position or the end is unknown.</summary>
    public long? Lag { get; set; }

    /// <summary>What holds it paused, by name (ReadAheadBudget, SchemaUnavailable, RetryNotDue, CopyNotWritten, Operator).</summary>
    public IReadOnlyList<string> PausedFor { get; set; } = [];

    public DateTimeOffset? ResumesAt { get; set; }

    public string? WaitingFor { get; set; }
}
