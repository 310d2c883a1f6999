namespace KafkaProtobuf.DeadLetters;

/// <summary>
/// Headers <see cref="DeadLetterExtensions"/> appends to a dead-lettered record, after the original headers. Values are
/// UTF-8 text. After them come the current <see cref="System.Diagnostics.Activity"/>'s trace headers, if one is current
/// (<see cref="Diagnostics.KafkaTraceContext"/>).
/// </summary>
public static class DeadLetterHeaderNames
{
    /// <summary>
    /// The <see cref="FrameErrorCode"/> name (e.g. <c>UnknownMagicByte</c>), or the exception type for other failures
    /// (its full name for a handler's failure, e.g. <c>System.TimeoutException</c>).
    /// </summary>
    public const string ErrorCode = "kafkaprotobuf.error.code";

    /// <summary>The exception message.</summary>
    public const string ErrorMessage = "kafkaprotobuf.error.message";

    /// <summary>What failed: <c>key</c> or <c>value</c> (deserialization), or <c>handler</c> (the application's handler, on a record that deserialized).</summary>
    public const string Component = "kafkaprotobuf.error.component";

    /// <summary>The byte offset of the fault (<see cref="InvalidFrameException.Offset"/>), when known.</summary>
    public const string ErrorOffset = "kafkaprotobuf.error.offset";

    /// <summary>The topic the record was consumed from.</summary>
    public const string SourceTopic = "kafkaprotobuf.source.topic";

    /// <summary>The partition the record was consumed from.</summary>
    public const string SourcePartition = "kafkaprotobuf.source.partition";

    /// <summary>The record's offset in its partition.</summary>
    public const string SourceOffset = "kafkaprotobuf.source.offset";
}
