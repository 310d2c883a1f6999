namespace KafkaProtobuf.SchemaRegistry;

/// <summary>
/// Which earlier versions of a subject a new schema is checked against, and in which direction: Schema Registry's
/// levels (<c>BACKWARD</c> by default). Backward: consumers using the new schema read what the earlier one wrote.
/// Forward: consumers still on the earlier schema read what the new one writes. Full: both. Transitive: against every
/// earlier version, not only the latest.
/// </summary>
public enum CompatibilityLevel
{
    /// <summary><c>NONE</c>: nothing is checked.</summary>
    None,

    /// <summary><c>BACKWARD</c>: the new schema against the latest version (the registry's default).</summary>
    Backward,

    /// <summary><c>BACKWARD_TRANSITIVE</c>: the new schema against every earlier version.</summary>
    BackwardTransitive,

    /// <summary><c>FORWARD</c>: the latest version against the new schema.</summary>
    Forward,

    /// <summary><c>FORWARD_TRANSITIVE</c>: every earlier version against the new schema.</summary>
    ForwardTransitive,

    /// <summary><c>FULL</c>: backward and forward, against the latest version.</summary>
    Full,

    /// <summary><c>FULL_TRANSITIVE</c>: backward and forward, against every earlier version.</summary>
    FullTransitive,
}
