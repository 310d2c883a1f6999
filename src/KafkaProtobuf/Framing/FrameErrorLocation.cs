namespace KafkaProtobuf;

/// <summary>Which bytes a <see cref="FrameError"/> offset points into.</summary>
public enum FrameErrorLocation
{
    /// <summary>The record's key or value bytes (the component being read).</summary>
    RecordData = 0,

    /// <summary>The value of the component's schema-id header (<c>__value_schema_id</c> or <c>__key_schema_id</c>).</summary>
    SchemaIdHeader = 1,
}
