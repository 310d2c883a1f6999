// Kafka and a Schema Registry inside this process (KafkaProtobuf.Aspire.Hosting), and the service reading both.
using System;
using System.IO;
using Aspire.Hosting;

IDistributedApplicationBuilder builder = DistributedApplication.CreateBuilder(args);

var kafka = builder.AddEmbeddedKafka("kafka")
    .WithTopic("orders", partitions: 3)
    .WithTopic("orders.dlq")
    .WithTopic("payments"); // where a forged dead-letter header points: a redrive must never write here

// The dashboard's dead-letter commands verify, and sign redrives, with the flow's keys, from the AppHost's configuration.
if (builder.Configuration["KafkaProtobuf:ProvenanceKeys"] is { Length: > 0 } keys)
{
    kafka.WithProvenanceKeys(KafkaProtobuf.DeadLetters.ProvenanceKeys.Parse(keys));
}

// The topics of the provenance rows' scenarios (tests/Shared/ProvenanceRows.cs), unsigned and signed.
foreach (string prefix in new[] { "dash-unsigned-", "dash-signed-" })
{
    foreach (string topic in new[] { "orders", "payments", "billing", "billing.retry.1", "billing.retry.2", "orders.retry.1" })
    {
        kafka.WithTopic(prefix + topic, partitions: 6);
    }

    kafka.WithTopic(prefix + "rows.dlq");
}
var registry = builder.AddInProcessSchemaRegistry("registry")
    .WithSubject("orders-value", File.ReadAllText(Path.Combine(AppContext.BaseDirectory, "orders.proto")));

builder.AddProject<Projects.KafkaProtobuf_Aspire_Tests_Service>("service")
    .WithReference(kafka).WaitFor(kafka)
    .WithReference(registry).WaitFor(registry)
    .WithHttpEndpoint()
    .WithHttpHealthCheck("/health");

builder.Build().Run();
