namespace KafkaProtobuf;

/// <summary>Where a record carries its schema identifier and message-index path.</summary>
public enum SchemaIdPlacement
{
    /// <summary>
    /// In front of the Protobuf payload, inside the record's key or value bytes
    /// (Confluent's <c>Prefix</c> strategy, and the only one before Confluent 2.11).
    /// </summary>
    Prefix = 0,

    /// <summary>
    /// In the record header <c>__value_schema_id</c> (values) or <c>__key_schema_id</c> (keys); the key or value
    /// bytes are then the bare Protobuf payload (Confluent's <c>Header</c> strategy).
    /// </summary>
    Header = 1,
}
