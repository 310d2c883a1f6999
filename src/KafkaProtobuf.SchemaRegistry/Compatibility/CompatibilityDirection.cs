namespace KafkaProtobuf.SchemaRegistry;

/// <summary>Which schema reads which schema's records in a comparison.</summary>
public enum CompatibilityDirection
{
    /// <summary>The new schema reads what the earlier one wrote (the earlier one is the original).</summary>
    Backward,

    /// <summary>The earlier schema reads what the new one writes (the new one is the original).</summary>
    Forward,
}
