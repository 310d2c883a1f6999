namespace KafkaProtobuf;

/// <summary>
/// Options for <see cref="FramedProtobufDeserializer{T}"/>. A deserializer copies them when it is created, so
/// changing an options object later does not affect deserializers already built from it.
/// </summary>
public sealed class FramedDeserializerOptions
{
    /// <summary>The framing variant records are written in; the defaults read every current Confluent serializer.</summary>
    public FramingOptions Framing { get; } = new();

    /// <summary>
    /// Where the writer's .proto file of a record comes from, for <see cref="VerifyWriterType"/> by name and
    /// <see cref="WriterSchemaOptions.VerifyCompatibility"/>. Unused otherwise: the payload is parsed as the
    /// deserializer's type, as Confluent's deserializer does.
    /// </summary>
    public WriterSchemaOptions WriterSchemas { get; } = new();

    /// <summary>
    /// When <see langword="true"/>, a record written as another message type is rejected with
    /// <see cref="FrameErrorCode.UnexpectedMessageType"/> instead of being parsed. Default <see langword="false"/>, like
    /// Confluent's deserializer, which parses whatever arrives.
    /// </summary>
    /// <remarks>
    /// With the writer's file (<see cref="WriterSchemaOptions.Source"/> or <see cref="WriterSchemaOptions.Files"/>) the
    /// record's path is read in it and the type it names compared with the deserializer's type by full name, which
    /// survives reordering. Without, the path is compared with the type's own path in its generated file, which is only
    /// meaningful when the reader's .proto declares its messages (and nested messages, and map fields) in the same order
    /// as the writer's: the same file, or a copy that only appended.
    /// </remarks>
    public bool VerifyWriterType { get; set; }
}
