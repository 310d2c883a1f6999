namespace KafkaProtobuf.Hosting;

/// <summary>
/// The names of the hosted consumer's diagnostic events: what must be accounted for record by record (each delivery,
/// stored offset, dead letter, move back), too much for a log, written on the consumer's own threads to the
/// <see cref="System.Diagnostics.DiagnosticListener"/> named <see cref="ListenerName"/> (subscribe through
/// <see cref="System.Diagnostics.DiagnosticListener.AllListeners"/>). Each event's payload is a
/// <see cref="KafkaProtobufConsumerEvent"/>: <c>ConsumerName</c> and <c>GroupId</c>, and, as the event needs,
/// <c>Position</c>, <c>Partitions</c>, <c>Lost</c>, <c>SchemaUnavailable</c>, <c>Committed</c>, <c>Error</c> or
/// <c>ReadAheadBytes</c>.
/// With no subscriber an event costs a field read.
/// </summary>
public static class KafkaProtobufConsumerDiagnostics
{
    /// <summary>The listener's name: <c>KafkaProtobuf.Hosting</c>.</summary>
    public const string ListenerName = "KafkaProtobuf.Hosting";

    /// <summary>Partitions were assigned (<c>Partitions</c>).</summary>
    public const string AssignedEvent = ListenerName + ".Assigned";

    /// <summary>Partitions were revoked, or, with <c>Lost</c>, lost (<c>Partitions</c>).</summary>
    public const string RevokedEvent = ListenerName + ".Revoked";

    /// <summary>
    /// A consume gave the consumer a record: good, poison, or one whose writer's schema is unavailable (<c>Position</c>).
    /// </summary>
    public const string DeliveredEvent = ListenerName + ".Delivered";

    /// <summary>
    /// The consumer went back to a record, to read it again (<c>Position</c>): its writer's schema was unavailable
    /// (<c>SchemaUnavailable</c>), or its copy was not written.
    /// </summary>
    public const string MovedBackEvent = ListenerName + ".MovedBack";

    /// <summary>A record was written to the dead-letter topic (<c>Position</c>).</summary>
    public const string DeadLetteredEvent = ListenerName + ".DeadLettered";

    /// <summary>
    /// The offset past a record its handler completed was stored (<c>Position</c>): it and every earlier record of its
    /// partition are done with (a copy written stores its own, told as <see cref="DeadLetteredEvent"/>).
    /// </summary>
    public const string StoredEvent = ListenerName + ".Stored";

    /// <summary>A commit's outcome (<c>Committed</c>).</summary>
    public const string CommittedEvent = ListenerName + ".Committed";

    /// <summary>The Kafka client reported an error (<c>Error</c>).</summary>
    public const string ClientErrorEvent = ListenerName + ".ClientError";

    /// <summary>
    /// What records taken and not yet concluded count against the read-ahead budget changed (<c>ReadAheadBytes</c>).
    /// </summary>
    public const string ReadAheadEvent = ListenerName + ".ReadAhead";

    /// <summary>Shutdown began: no record or batch starts its handler from now on.</summary>
    public const string StoppingEvent = ListenerName + ".Stopping";
}
