namespace KafkaProtobuf.Aspire;

/// <summary>
/// How a registering producer is wired into an Aspire service: where it connects and which of Aspire's conventions it
/// follows. Read from <c>ConnectionStrings:{connectionName}</c>, then the switches of the <c>Aspire:KafkaProtobuf</c>
/// section, then those of the producer's own section (<c>Aspire:KafkaProtobuf:Producers:{connectionName}</c>), then set in code.
/// </summary>
public sealed class KafkaProtobufProducerSettings
{
    /// <summary>
    /// The Kafka connection string: a host list (<c>host:port,…</c>) or <c>key=value;…</c> pairs with Confluent.Kafka's
    /// setting names, one of them <c>bootstrap.servers</c>. Default: <c>ConnectionStrings:{connectionName}</c>.
    /// </summary>
    public string? ConnectionString { get; set; }

    /// <summary>Leave out the producer's health check (its brokers answer a metadata request; nothing is written). Default false.</summary>
    public bool DisableHealthChecks { get; set; }

    /// <summary>Leave out librdkafka's log and client errors through <c>ILogger</c>. Default false.</summary>
    public bool DisableLogging { get; set; }
}
