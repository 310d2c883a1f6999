// Kafka and a Schema Registry inside this process (KafkaProtobuf.Aspire.Hosting), and the service reading both.
using System;
using System.IO;
using Aspire.Hosting;

IDistributedApplicationBuilder builder = DistributedApplication.CreateBuilder(args);

var kafka = builder.AddEmbeddedKafka("kafka")
    .WithTopic("orders", partitions: 3)
    .WithTopic("orders.dlq")
    .WithTopic("payments"); // where a forged dead-letter header points: a redrive must never write here
var registry = builder.AddInProcessSchemaRegistry("registry")
    .WithSubject("orders-value", File.ReadAllText(Path.Combine(AppContext.BaseDirectory, "orders.proto")));

builder.AddProject<Projects.KafkaProtobuf_Aspire_Tests_Service>("service")
    .WithReference(kafka).WaitFor(kafka)
    .WithReference(registry).WaitFor(registry)
    .WithHttpEndpoint()
    .WithHttpHealthCheck("/health");

builder.Build().Run();
