namespace KafkaProtobuf;

/// <summary>
/// Why a record could not be read. Every value but <see cref="None"/> is reported by
/// <see cref="InvalidFrameException.ErrorCode"/> and by <see cref="FrameError.Code"/>, together with the byte offset
/// at which the fault was found.
/// </summary>
/// <remarks>The numeric values are stable and may be logged, stored or used as metric tags.</remarks>
public enum FrameErrorCode
{
    /// <summary>No error.</summary>
    None = 0,

    /// <summary>
    /// The data is empty: a record without a schema-id header, or a schema-id header whose value is empty or null.
    /// (A tombstone is not an error, and neither is an empty payload when the schema id is in a header.)
    /// </summary>
    EmptyData = 1,

    /// <summary>
    /// The data ends inside the schema identifier its magic byte announces: 4 bytes of id after <c>0x00</c>, 16 bytes of
    /// GUID after <c>0x01</c>. The offset is that of the first identifier byte (1).
    /// </summary>
    TruncatedSchemaId = 2,

    /// <summary>The first byte is neither <c>0x00</c> (schema id) nor <c>0x01</c> (schema GUID). The offset is 0.</summary>
    UnknownMagicByte = 3,

    /// <summary>
    /// The data ends inside a varint of the message-index path, or before it starts (a frame with no index bytes at
    /// all). The offset is that of the varint's first byte.
    /// </summary>
    TruncatedVarint = 4,

    /// <summary>A varint of the message-index path runs past 5 bytes, the most a 32-bit value needs.</summary>
    VarintTooLong = 5,

    /// <summary>
    /// The 5th byte of a varint of the message-index path carries more than the 4 bits left in a 32-bit value.
    /// </summary>
    VarintOverflow = 6,

    /// <summary>
    /// The message-index count is negative (in the legacy unsigned encoding: above <see cref="int.MaxValue"/>).
    /// </summary>
    NegativeMessageIndexCount = 7,

    /// <summary>
    /// The message-index count is larger than the number of bytes left, so the path cannot be complete (every index
    /// takes at least one byte). Checked before any index is read.
    /// </summary>
    MessageIndexCountExceedsData = 8,

    /// <summary>
    /// A message index is negative (in the legacy unsigned encoding: above <see cref="int.MaxValue"/>).
    /// The offset is that of the index's varint.
    /// </summary>
    NegativeMessageIndex = 9,

    /// <summary>
    /// A schema-id header value has bytes after its message-index path. The header must hold exactly the magic byte,
    /// the identifier and the path. The offset is that of the first extra byte.
    /// </summary>
    TrailingHeaderBytes = 10,

    /// <summary>
    /// The framing is valid but the Protobuf parser rejected the payload; the parser's
    /// <see cref="Google.Protobuf.InvalidProtocolBufferException"/> is the inner exception. The offset is that of the
    /// payload's first byte in the record's data.
    /// </summary>
    InvalidPayload = 11,

    /// <summary>
    /// The deserializer knows no .proto file for the record's schema id or GUID: it is not in
    /// <see cref="WriterSchemaOptions.Files"/> and the <see cref="WriterSchemaOptions.Source"/> does not know it (the
    /// message-index path is relative to the writer's file, so it cannot be resolved). The offset is that of the path.
    /// </summary>
    UnknownSchemaId = 12,

    /// <summary>
    /// The message-index path names no message type in the writer's .proto file: an index is out of range, or it
    /// names a map field's hidden entry type. The offset is that of the path.
    /// </summary>
    UnknownMessageType = 13,

    /// <summary>
    /// The path names a message type the <see cref="MultiTypeProtobufDeserializer"/> was not given, and its
    /// <see cref="MultiTypeDeserializerOptions.UnregisteredMessageTypes"/> is <see cref="UnregisteredMessageTypeHandling.Reject"/>.
    /// The offset is that of the path.
    /// </summary>
    UnregisteredMessageType = 14,

    /// <summary>
    /// <see cref="FramedDeserializerOptions.VerifyWriterType"/> is on and the record was written as another type: its
    /// path names another type in the writer's file (by name), or, without the writer's file, is not the deserializer's
    /// type's path in its own file. The offset is that of the path.
    /// </summary>
    UnexpectedMessageType = 15,

    /// <summary>
    /// The writer's schema check is on (<see cref="WriterSchemaOptions.VerifyCompatibility"/>) and the writer's message declares a field with
    /// the same number as the reader's type but another wire type (e.g. writer <c>string name = 3</c>, reader
    /// <c>int64 count = 3</c>), here or in a message type it contains. Found once per schema and type, before any
    /// record of that schema is parsed. The offset is that of the path.
    /// </summary>
    IncompatibleWriterSchema = 16,

    /// <summary>
    /// <see cref="FramingOptions.MessageIndexOrder"/> is <see cref="MessageIndexOrder.EitherByWriterSchema"/> and the
    /// path names a message type in the writer's file read top level first and another one read innermost first: the
    /// record may come from Confluent's .NET serializer 2.10.1 to 2.11.0 or from any other, and nothing tells which. It
    /// is not guessed; read the topic with an explicit order, or dead-letter the record and replay it with one. The
    /// offset is that of the path.
    /// </summary>
    AmbiguousMessageIndexOrder = 17,

    /// <summary>
    /// The writer's schema source has an answer for the record's schema id or GUID, and that answer cannot be read as a
    /// Protobuf file and never will be: the schema is not Protobuf (an Avro or JSON Schema id on a Protobuf topic), its
    /// descriptor does not build, it imports a file it has no reference for, a reference is not in the registry, the
    /// registry refused the request for this identifier (a 404 or 422 with its error code), or the answer is past the
    /// source's limits. The source threw <see cref="UnusableSchemaException"/>, which is the inner exception and says
    /// why. The offset is that of the path.
    /// </summary>
    UnusableWriterSchema = 18,
}
