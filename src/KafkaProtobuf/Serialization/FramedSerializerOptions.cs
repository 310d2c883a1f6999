namespace KafkaProtobuf;

/// <summary>
/// Options for <see cref="FramedProtobufSerializer{T}"/>. A serializer copies them when it is created.
/// </summary>
public sealed class FramedSerializerOptions
{
    /// <summary>
    /// Where the schema identifier and message-index path go. Default <see cref="SchemaIdPlacement.Prefix"/>, which
    /// every Schema Registry client can read; <see cref="SchemaIdPlacement.Header"/> needs readers that know the
    /// schema-id headers (Confluent clients 2.11 and later, and this package).
    /// </summary>
    public SchemaIdPlacement SchemaIdPlacement { get; set; } = SchemaIdPlacement.Prefix;

    /// <summary>
    /// How message indexes are encoded. Default <see cref="MessageIndexEncoding.ZigZag"/>; write
    /// <see cref="MessageIndexEncoding.LegacyUnsigned"/> only for consumers that still expect the deprecated format.
    /// </summary>
    public MessageIndexEncoding MessageIndexEncoding { get; set; } = MessageIndexEncoding.ZigZag;
}
