namespace KafkaProtobuf.DeadLetters;

/// <summary>
/// Headers <see cref="DeadLetterExtensions"/> appends to a dead-lettered record, after the original headers: one block,
/// from <see cref="ErrorCode"/> to <see cref="Block"/> (<see cref="ProvenanceCodec"/> writes and reads it). Values are
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

    /// <summary>
    /// The tier the writer read the record from, when the record's topic is one of the retry tiers its configuration
    /// names (<see cref="RetryTier"/>), with <see cref="SourceFirstTopic"/>; absent otherwise, whatever the topic is called.
    /// </summary>
    public const string SourceTier = "kafkaprotobuf.source.tier";

    /// <summary>With <see cref="SourceTier"/>: the topic the tier's records were first read from.</summary>
    public const string SourceFirstTopic = "kafkaprotobuf.source.first_topic";

    /// <summary>
    /// The last header of every block this package appends (a dead letter's, a retry copy's, a redrive's): the format,
    /// where the block starts and where the record's own headers end, as header indexes, and, when the writer has
    /// <see cref="ProvenanceKeys"/>, the block's HMAC: <c>v1;start=5;own=3;hmac=…</c>.
    /// </summary>
    public const string Block = "kafkaprotobuf.block";

    // The retry hop's headers, named as KafkaProtobuf.Hosting's RetryHeaderNames names them (the hop is written here).
    internal const string HopTier = "kafkaprotobuf.retry.tier";
    internal const string HopDue = "kafkaprotobuf.retry.due";
    internal const string HopFirstFailure = "kafkaprotobuf.retry.first_failure";
}
