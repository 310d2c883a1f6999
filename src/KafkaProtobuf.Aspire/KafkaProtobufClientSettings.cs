namespace KafkaProtobuf.Aspire;

/// <summary>
/// How a KafkaProtobuf client is wired into an Aspire service: where it connects and which of Aspire's conventions it
/// follows. Read from <c>ConnectionStrings:{connectionName}</c> and the <c>Aspire:KafkaProtobuf</c> section
/// (<c>DisableHealthChecks</c>, <c>DisableTracing</c>, <c>DisableMetrics</c>, <c>DisableLogging</c>), then set in code.
/// </summary>
public sealed class KafkaProtobufClientSettings
{
    /// <summary>
    /// The connection string. Kafka: a host list (<c>host:port,…</c>) or <c>key=value;…</c> pairs with
    /// Confluent.Kafka's setting names, one of them <c>bootstrap.servers</c>. Schema Registry: its URL (several
    /// comma-separated), or pairs with Confluent's <c>schema.registry.*</c> names. Default: <c>ConnectionStrings:{connectionName}</c>.
    /// </summary>
    public string? ConnectionString { get; set; }

    /// <summary>Leave out the health check (a consumer's state, a producer's brokers answering metadata, the registry answering a read). Default false.</summary>
    public bool DisableHealthChecks { get; set; }

    /// <summary>Leave out the OpenTelemetry tracing registration (the hosted consumer's <c>process</c> spans). Default false.</summary>
    public bool DisableTracing { get; set; }

    /// <summary>Leave out the OpenTelemetry metrics registration (the <c>KafkaProtobuf</c> meter). Default false.</summary>
    public bool DisableMetrics { get; set; }

    /// <summary>Leave out the producer's librdkafka log through <c>ILogger</c> (the hosted consumer always logs through it). Default false.</summary>
    public bool DisableLogging { get; set; }
}
