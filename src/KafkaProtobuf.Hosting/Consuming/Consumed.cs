namespace KafkaProtobuf.Hosting.Consuming;

/// <summary>What one consume brought.</summary>
internal enum Consumed
{
    /// <summary>A record to handle.</summary>
    Record,

    /// <summary>A record that cannot be deserialized: dead-letter it.</summary>
    Poison,

    /// <summary>A record whose writer's schema could not be obtained: read it again later.</summary>
    SchemaUnavailable,

    /// <summary>Nothing (a timeout, the end of a partition, a passing broker error).</summary>
    Nothing,

    /// <summary>The consumer cannot go on: the client's <c>Failure</c> says why.</summary>
    Failed,

    /// <summary>Shutdown.</summary>
    Stopping,
}
