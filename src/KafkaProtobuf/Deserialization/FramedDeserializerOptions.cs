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

    internal FrameReader CreateReader() =>
        MessageIndexEncoding == MessageIndexEncoding.ZigZag && SchemaIdLookup == SchemaIdLookup.HeaderThenPrefix
            ? FrameReader.Default
            : new FrameReader(MessageIndexEncoding, SchemaIdLookup);
}
