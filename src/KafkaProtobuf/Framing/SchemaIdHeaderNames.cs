using Confluent.Kafka;

namespace KafkaProtobuf.Framing;

/// <summary>Names of the record headers that carry a schema identifier, as Confluent's serializers write them.</summary>
public static class SchemaIdHeaderNames
{
    /// <summary>The header that carries the key's schema identifier and message-index path.</summary>
    public const string Key = "__key_schema_id";

    /// <summary>The header that carries the value's schema identifier and message-index path.</summary>
    public const string Value = "__value_schema_id";

    /// <summary>Returns the header name for a record component: <see cref="Key"/> for keys, <see cref="Value"/> otherwise.</summary>
    /// <param name="component">The record component.</param>
    /// <returns>The header name.</returns>
    public static string For(MessageComponentType component) => component == MessageComponentType.Key ? Key : Value;
}
