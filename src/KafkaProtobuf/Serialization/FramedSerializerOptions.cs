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

    /// <summary>
    /// In which order a nested type's path is written. Default <see cref="MessageIndexOrder.RootFirst"/>, the format.
    /// <see cref="MessageIndexOrder.InnermostFirst"/> reproduces the records of Confluent's .NET serializer 2.10.1 to
    /// 2.11.0, for testing consumers of topics that hold them; never write it for real consumers.
    /// <see cref="MessageIndexOrder.EitherByWriterSchema"/> is for readers only.
    /// </summary>
    public MessageIndexOrder MessageIndexOrder { get; set; } = MessageIndexOrder.RootFirst;
}
