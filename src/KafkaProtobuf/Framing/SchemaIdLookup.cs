namespace KafkaProtobuf;

/// <summary>Where a reader looks for the schema identifier of a record.</summary>
public enum SchemaIdLookup
{
    /// <summary>
    /// The schema-id header of the component (<c>__value_schema_id</c> or <c>__key_schema_id</c>) when the record has
    /// one, the prefix of the record's bytes otherwise. This is Confluent's <c>Dual</c> rule and the default.
    /// </summary>
    HeaderThenPrefix = 0,

    /// <summary>
    /// Only the prefix of the record's bytes; schema-id headers are ignored. Use it when upstream code copies headers
    /// between records and a stale schema-id header could mislead the reader.
    /// </summary>
    PrefixOnly = 1,
}
