namespace KafkaProtobuf.SchemaRegistry;

/// <summary>
/// Options of a <see cref="RegistryProtobufSerializer{T}"/>, with Confluent's serializer settings and defaults. The
/// serializer copies them when it is created.
/// </summary>
public sealed class RegistrySerializerOptions
{
    /// <summary>The subject the schema is registered under. Default <see cref="SchemaRegistry.SubjectNaming.Topic"/>.</summary>
    public SubjectNaming SubjectNaming { get; set; } = SubjectNaming.Topic;

    /// <summary>
    /// Register the schema (and its imports, as references) on the first record of each subject
    /// (Confluent's <c>auto.register.schemas</c>). When off, it must already be registered: it is looked up. Default <see langword="true"/>.
    /// </summary>
    public bool AutoRegisterSchemas { get; set; } = true;

    /// <summary>
    /// Write with the subject's latest registered version instead of registering or looking up this type's schema
    /// (Confluent's <c>use.latest.version</c>; needs <see cref="AutoRegisterSchemas"/> off). Default <see langword="false"/>.
    /// </summary>
    public bool UseLatestVersion { get; set; }

    /// <summary>Ask the registry to normalize schemas before registering or looking them up (Confluent's <c>normalize.schemas</c>). Default <see langword="false"/>.</summary>
    public bool NormalizeSchemas { get; set; }

    /// <summary>
    /// Leave Google's and Confluent's own imports (<c>google/protobuf/*</c>, <c>google/type/*</c>, <c>confluent/*</c>)
    /// out of the references (Confluent's <c>skip.known.types</c>); readers take them from their Protobuf library.
    /// Default <see langword="true"/>.
    /// </summary>
    public bool SkipKnownTypes { get; set; } = true;

    /// <summary>
    /// Where the identifier goes: <see cref="SchemaIdPlacement.Prefix"/> (the schema id, the default) or
    /// <see cref="SchemaIdPlacement.Header"/> (the schema GUID in the schema-id header, as Confluent's header strategy
    /// writes it; needs a registry that hands out GUIDs, Confluent Platform 8.0 or later).
    /// </summary>
    public SchemaIdPlacement SchemaIdPlacement { get; set; } = SchemaIdPlacement.Prefix;

    /// <summary>How message indexes are encoded. Default <see cref="MessageIndexEncoding.ZigZag"/>.</summary>
    public MessageIndexEncoding MessageIndexEncoding { get; set; } = MessageIndexEncoding.ZigZag;

    /// <summary>
    /// In which order a nested type's path is written. Default <see cref="MessageIndexOrder.RootFirst"/>, the format.
    /// <see cref="MessageIndexOrder.InnermostFirst"/> reproduces the records of Confluent's .NET serializer 2.10.1 to
    /// 2.11.0, for testing consumers of topics that hold them; never write it for real consumers.
    /// </summary>
    public MessageIndexOrder MessageIndexOrder { get; set; } = MessageIndexOrder.RootFirst;
}
