namespace KafkaProtobuf;

/// <summary>
/// Options for <see cref="FramedProtobufDeserializer{T}"/>. A deserializer copies them when it is created, so
/// changing an options object later does not affect deserializers already built from it.
/// </summary>
public sealed class FramedDeserializerOptions
{
    /// <summary>
    /// How message indexes are encoded. Default <see cref="MessageIndexEncoding.ZigZag"/>, what every current
    /// Confluent serializer writes; choose <see cref="MessageIndexEncoding.LegacyUnsigned"/> only for topics written
    /// with the deprecated format.
    /// </summary>
    public MessageIndexEncoding MessageIndexEncoding { get; set; } = MessageIndexEncoding.ZigZag;

    /// <summary>
    /// Where to look for the schema identifier. Default <see cref="SchemaIdLookup.HeaderThenPrefix"/> (Confluent's
    /// <c>Dual</c> rule); <see cref="SchemaIdLookup.PrefixOnly"/> ignores schema-id headers.
    /// </summary>
    public SchemaIdLookup SchemaIdLookup { get; set; } = SchemaIdLookup.HeaderThenPrefix;

    /// <summary>
    /// When <see langword="true"/>, a record whose message-index path does not name the deserializer's type in that
    /// type's own .proto file is rejected with <see cref="FrameErrorCode.UnexpectedMessageType"/> instead of being parsed.
    /// Default <see langword="false"/>, like Confluent's deserializer, which parses whatever arrives.
    /// </summary>
    /// <remarks>
    /// The path is relative to the writer's schema, so the check is only meaningful when the reader's .proto declares
    /// its messages (and nested messages, and map fields) in the same order as the writer's: the same file, or a copy
    /// that only appended. A reordered file turns the check into false alarms or, worse, false passes.
    /// </remarks>
    public bool VerifyWriterType { get; set; }

    internal FrameReader CreateReader() =>
        MessageIndexEncoding == MessageIndexEncoding.ZigZag && SchemaIdLookup == SchemaIdLookup.HeaderThenPrefix
            ? FrameReader.Default
            : new FrameReader(MessageIndexEncoding, SchemaIdLookup);
}
