using System;
using System.Collections.Generic;

namespace KafkaProtobuf.AspNetCore.Json;

/// <summary>One window of a dead-letter topic, newest first, grouped by failure.</summary>
internal sealed class DeadLetterPage
{
    public string Topic { get; set; } = string.Empty;

    public IReadOnlyList<PartitionRange> Partitions { get; set; } = [];

    /// <summary>Records in the topic (each partition's end past its start; compaction or retention may leave fewer).</summary>
    public long Total { get; set; }

    /// <summary>Records in this window.</summary>
    public int Count { get; set; }

    public IReadOnlyList<FailureGroupView> Groups { get; set; } = [];

    /// <summary>The cursor of the next, older window; null at the topic's start.</summary>
    public string? Older { get; set; }
}

/// <summary>A partition's first and next offsets.</summary>
internal sealed class PartitionRange
{
    public int Partition { get; set; }

    public long Start { get; set; }

    public long End { get; set; }
}

/// <summary>Dead letters that failed the same way: error code, component and kind of message, with a count and an example.</summary>
internal sealed class FailureGroupView
{
    /// <summary>The frame error code, or the exception type of other failures.</summary>
    public string Code { get; set; } = string.Empty;

    public string Component { get; set; } = string.Empty;

    /// <summary>The kind of message: its first line with record-specific parts set aside (<c>'…'</c>, <c>#</c>).</summary>
    public string Pattern { get; set; } = string.Empty;

    /// <summary>The first line of its first dead letter's message.</summary>
    public string Example { get; set; } = string.Empty;

    public int Count { get; set; }

    public IReadOnlyList<DeadLetterView> Records { get; set; } = [];
}

/// <summary>One dead letter: where it is, where it came from, why, and what it holds as text.</summary>
internal sealed class DeadLetterView
{
    public int Partition { get; set; }

    public long Offset { get; set; }

    public DateTimeOffset? Timestamp { get; set; }

    public string? SourceTopic { get; set; }

    public int? SourcePartition { get; set; }

    public long? SourceOffset { get; set; }

    public int RedriveCount { get; set; }

    /// <summary>Where its record came from, or why that is not known, as every front-end says it.</summary>
    public string Source { get; set; } = string.Empty;

    /// <summary>How far its source is believed: none, unchecked, verified or unverified.</summary>
    public string Provenance { get; set; } = "none";

    public string ErrorMessage { get; set; } = string.Empty;

    public PartView Key { get; set; } = new();

    public PartView Value { get; set; } = new();

    public IReadOnlyList<HeaderView> Headers { get; set; } = [];
}

/// <summary>A key or value as text: decoded JSON, plain text, or hex; cut past the page's limit.</summary>
internal sealed class PartView
{
    /// <summary>json, text, hex or null.</summary>
    public string Kind { get; set; } = "null";

    public int Size { get; set; }

    public string Text { get; set; } = string.Empty;

    public bool Cut { get; set; }

    public string? TypeName { get; set; }

    public string? SchemaId { get; set; }

    /// <summary>Why it could not be decoded, when it could not.</summary>
    public string? Problem { get; set; }
}

/// <summary>A header as text.</summary>
internal sealed class HeaderView
{
    public string Name { get; set; } = string.Empty;

    public string Value { get; set; } = string.Empty;
}

/// <summary>A key's or value's bytes as written, base64.</summary>
internal sealed class RawView
{
    public int Size { get; set; }

    public string Base64 { get; set; } = string.Empty;

    public bool Cut { get; set; }
}
