using Confluent.Kafka;
using KafkaProtobuf.SchemaRegistry;

namespace KafkaProtobuf.Aspire;

/// <summary>
/// A registering Protobuf producer's options, read from <c>Aspire:KafkaProtobuf:Producers:{connectionName}</c>
/// (<c>Producer</c>: librdkafka's setting names; <c>Serializer</c>: <c>AutoRegisterSchemas</c>, <c>UseLatestVersion</c>,
/// <c>NormalizeSchemas</c>, <c>SkipKnownTypes</c>, <c>SubjectNaming</c>, <c>SchemaIdPlacement</c>; <c>RegistryConnectionName</c>:
/// the registry client's connection name), then set in code. The connection string's settings win over <see cref="Producer"/>'s.
/// </summary>
public sealed class KafkaProtobufProducerOptions
{
    /// <summary>The producer's settings. The defaults are librdkafka's (<c>acks=all</c>; set <c>enable.idempotence</c> for no duplicates on a retry).</summary>
    public ProducerConfig Producer { get; } = new();

    /// <summary>The value serializer's settings.</summary>
    public RegistrySerializerOptions Serializer { get; } = new();

    /// <summary>
    /// The connection name of the registry client to register with (added by <c>AddKeyedKafkaProtobufRegistryClient</c>);
    /// null: the one added by <c>AddKafkaProtobufRegistryClient</c>.
    /// </summary>
    public string? RegistryConnectionName { get; set; }
}
