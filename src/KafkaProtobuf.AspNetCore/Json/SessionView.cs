using System.Collections.Generic;

namespace KafkaProtobuf.AspNetCore.Json;

/// <summary>Who is looking and what they may do: what the page needs before anything else.</summary>
internal sealed class SessionView
{
    public string User { get; set; } = string.Empty;

    public bool CanAct { get; set; }

    /// <summary>The request header acting requests carry the antiforgery token in.</summary>
    public string? AntiforgeryHeader { get; set; }

    public string? AntiforgeryToken { get; set; }

    public IReadOnlyList<string> DeadLetterTopics { get; set; } = [];

    public bool DeadLettersReadable { get; set; }

    public int RecordsPerPage { get; set; }
}
