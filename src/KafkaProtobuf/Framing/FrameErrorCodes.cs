using System.Globalization;

namespace KafkaProtobuf;

/// <summary>
/// What each <see cref="FrameErrorCode"/> means, in one table: its description and the stage of reading that finds it.
/// A new code is a new enum member, a row here and a line in docs/errors.md; nothing depends on the codes' numeric order.
/// </summary>
internal static class FrameErrorCodes
{
    /// <summary>The stage of reading a record that finds a fault.</summary>
    internal enum Stage
    {
        /// <summary>Reading the framing: magic byte, identifier, message-index path, schema-id header.</summary>
        Framing,

        /// <summary>Finding the writer's type the path names and checking it against the reader's.</summary>
        Resolution,

        /// <summary>Parsing the payload.</summary>
        Payload,
    }

    /// <summary>Which stage finds <paramref name="code"/>.</summary>
    /// <exception cref="System.ArgumentOutOfRangeException">A code missing from this table (a test pins that none is).</exception>
    internal static Stage StageOf(FrameErrorCode code) => code switch
    {
        FrameErrorCode.None or FrameErrorCode.EmptyData or FrameErrorCode.TruncatedSchemaId or FrameErrorCode.UnknownMagicByte
            or FrameErrorCode.TruncatedVarint or FrameErrorCode.VarintTooLong or FrameErrorCode.VarintOverflow
            or FrameErrorCode.NegativeMessageIndexCount or FrameErrorCode.MessageIndexCountExceedsData
            or FrameErrorCode.NegativeMessageIndex or FrameErrorCode.TrailingHeaderBytes => Stage.Framing,
        FrameErrorCode.UnknownSchemaId or FrameErrorCode.UnknownMessageType or FrameErrorCode.UnregisteredMessageType
            or FrameErrorCode.UnexpectedMessageType or FrameErrorCode.IncompatibleWriterSchema
            or FrameErrorCode.AmbiguousMessageIndexOrder or FrameErrorCode.UnusableWriterSchema => Stage.Resolution,
        FrameErrorCode.InvalidPayload => Stage.Payload,
        _ => throw new System.ArgumentOutOfRangeException(nameof(code), code, "Not in the FrameErrorCodes table."),
    };

    /// <summary>Whether the message-index path had been read when <paramref name="code"/> was found (so it can be reported).</summary>
    internal static bool IsFoundAfterThePath(FrameErrorCode code) => StageOf(code) != Stage.Framing;

    /// <summary>What <paramref name="code"/> means, for messages; the schema-id header's empty value is said as such.</summary>
    internal static string Describe(FrameErrorCode code, FrameErrorLocation location) => code switch
    {
        FrameErrorCode.None => "no error",
        FrameErrorCode.EmptyData => location == FrameErrorLocation.SchemaIdHeader
            ? "the schema-id header is present but its value is empty"
            : "the data is empty, so it has no magic byte (a tombstone would be null, not empty)",
        FrameErrorCode.TruncatedSchemaId =>
            "the data ends inside the schema identifier (magic byte 0x00 needs 4 id bytes, 0x01 needs 16 GUID bytes)",
        FrameErrorCode.UnknownMagicByte =>
            "the magic byte is neither 0x00 (schema id) nor 0x01 (schema GUID), so this is not Schema Registry framing",
        FrameErrorCode.TruncatedVarint => "the data ends inside or before a varint of the message-index path",
        FrameErrorCode.VarintTooLong => "a varint of the message-index path is longer than 5 bytes",
        FrameErrorCode.VarintOverflow => "a varint of the message-index path does not fit in 32 bits",
        FrameErrorCode.NegativeMessageIndexCount => "the message-index count is negative",
        FrameErrorCode.MessageIndexCountExceedsData => "the message-index count is larger than the bytes left",
        FrameErrorCode.NegativeMessageIndex => "a message index is negative",
        FrameErrorCode.TrailingHeaderBytes => "the schema-id header value has bytes after its message-index path",
        FrameErrorCode.InvalidPayload => "the Protobuf parser rejected the payload",
        FrameErrorCode.UnknownSchemaId => "no .proto file is known for the record's schema identifier",
        FrameErrorCode.UnknownMessageType => "the message-index path names no message type in the writer's .proto file",
        FrameErrorCode.UnregisteredMessageType => "the message-index path names a message type this deserializer was not given",
        FrameErrorCode.UnexpectedMessageType => "the message-index path names another message type than the one expected",
        FrameErrorCode.IncompatibleWriterSchema => "the writer's schema gives a field of the reader's type another wire type",
        FrameErrorCode.AmbiguousMessageIndexOrder =>
            "the message-index path names one message type read top level first and another read innermost first",
        FrameErrorCode.UnusableWriterSchema => "the writer's schema source's answer for the record's schema identifier is not a usable Protobuf schema",
        _ => "unknown error " + ((int)code).ToString(CultureInfo.InvariantCulture),
    };
}
