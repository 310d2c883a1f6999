namespace KafkaProtobuf.Aspire;

/// <summary>
/// How a hosted consumer is wired into an Aspire service: where it connects and which of Aspire's conventions it
/// follows. Read from <c>ConnectionStrings:{connectionName}</c>, then the switches of the <c>Aspire:KafkaProtobuf</c>
/// section, then those of the consumer's own section (<c>Aspire:KafkaProtobuf:Consumers:{consumerName}</c>), then set in code.
/// </summary>
public sealed class KafkaProtobufConsumerSettings
{
    /// <summary>
    /// The Kafka connection string: a host list (<c>host:port,…</c>) or <c>key=value;…</c> pairs with Confluent.Kafka's
    /// setting names, one of them <c>bootstrap.servers</c>. Default: <c>ConnectionStrings:{connectionName}</c>.
    /// </summary>
    public string? ConnectionString { get; set; }

    /// <summary>Leave out the consumers' health check (<c>kafkaprotobuf-consumers</c>, every hosted consumer's state). Default false.</summary>
    public bool DisableHealthChecks { get; set; }

    /// <summary>Leave out the OpenTelemetry tracing registration (the hosted consumer's <c>process</c> spans). Default false.</summary>
    public bool DisableTracing { get; set; }

    /// <summary>Leave out the OpenTelemetry metrics registration (the <c>KafkaProtobuf</c> meter). Default false.</summary>
    public bool DisableMetrics { get; set; }
}
