namespace KafkaProtobuf.AspNetCore.Json;

/// <summary>A pause, resume or rewind of one partition.</summary>
internal sealed class PartitionActionRequest
{
    public string Topic { get; set; } = string.Empty;

    public int Partition { get; set; }

    /// <summary>Where a rewind goes.</summary>
    public long? Offset { get; set; }
}

/// <summary>What an action came to (a <c>PartitionActionResult</c> name), and what it means.</summary>
internal sealed class ActionView
{
    public string Result { get; set; } = string.Empty;

    public string Message { get; set; } = string.Empty;
}

/// <summary>Why a request failed.</summary>
internal sealed class ErrorView
{
    public string Error { get; set; } = string.Empty;
}
