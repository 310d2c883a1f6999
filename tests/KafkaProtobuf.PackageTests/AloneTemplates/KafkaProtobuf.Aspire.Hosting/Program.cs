// A project whose one reference is the KafkaProtobuf.Aspire.Hosting package: an AppHost's application model with both
// resources built (starting it needs Aspire's orchestrator, which the AppHost SDK brings: the Aspire tests start one),
// then the embedded cluster the package brings carries a record on the floors it resolves.
using Aspire.Hosting;
using Confluent.Kafka;
using KafkaProtobuf.Testing;

IDistributedApplicationBuilder builder = DistributedApplication.CreateBuilder(new DistributedApplicationOptions { Args = [], DisableDashboard = true });
builder.AddEmbeddedKafka("kafka").WithTopic("alone");
builder.AddInProcessSchemaRegistry("registry").WithSubject("alone-value", "syntax = \"proto3\";\nmessage Alone { string text = 1; }\n");
await using DistributedApplication app = builder.Build();

using EmbeddedKafkaCluster cluster = EmbeddedKafkaCluster.Start();
cluster.CreateTopic("alone", 1);
using IProducer<Null, string> producer = new ProducerBuilder<Null, string>(cluster.CreateProducerConfig()).Build();
DeliveryResult<Null, string> delivered = await producer.ProduceAsync("alone", new Message<Null, string> { Value = "alone" }).WaitAsync(TimeSpan.FromSeconds(60));
Console.WriteLine(delivered.Status == PersistenceStatus.Persisted ? "alone: OK" : "alone: FAILED");
return delivered.Status == PersistenceStatus.Persisted ? 0 : 1;
