namespace KafkaProtobuf.Aspire;

/// <summary>
/// How the Schema Registry client is wired into an Aspire service: where it connects and whether it has a health check.
/// Read from <c>ConnectionStrings:{connectionName}</c>, then the switches of the <c>Aspire:KafkaProtobuf</c> section,
/// then those of the registry's own section (<c>Aspire:KafkaProtobuf:Registries:{connectionName}</c>), then set in code.
/// </summary>
public sealed class KafkaProtobufRegistrySettings
{
    /// <summary>
    /// The registry's connection string: its URL (several comma-separated), or pairs with Confluent's
    /// <c>schema.registry.*</c> names. Default: <c>ConnectionStrings:{connectionName}</c>.
    /// </summary>
    public string? ConnectionString { get; set; }

    /// <summary>Leave out the registry's health check (it answers a read, <c>GET /schemas/types</c>). Default false.</summary>
    public bool DisableHealthChecks { get; set; }
}
