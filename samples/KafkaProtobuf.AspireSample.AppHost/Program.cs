// KafkaProtobuf's Aspire sample: Kafka (the embedded cluster) and a Schema Registry (the in-process registry) run in
// this AppHost's process, no Docker; the service writes and reads orders through them. In the dashboard, the kafka
// resource's commands list and redrive dead letters and show the group's lag ("shop"), the registry's checks a .proto.
using System;
using System.IO;
using Aspire.Hosting;

IDistributedApplicationBuilder builder = DistributedApplication.CreateBuilder(args);

var kafka = builder.AddEmbeddedKafka("kafka", brokerCount: 3)
    .WithTopic("shop.orders", partitions: 6)
    .WithTopic("shop.orders.dlq");
var registry = builder.AddInProcessSchemaRegistry("registry")
    .WithSubject("shop.orders-value", File.ReadAllText(Path.Combine(AppContext.BaseDirectory, "shop.proto")));

builder.AddProject<Projects.KafkaProtobuf_AspireSample_Service>("shop")
    .WithReference(kafka).WaitFor(kafka)
    .WithReference(registry).WaitFor(registry)
    .WithHttpEndpoint()
    .WithHttpHealthCheck("/health");

builder.Build().Run();
