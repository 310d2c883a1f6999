using System;
using System.Threading;
using KafkaProtobuf.Testing;
using KafkaProtobuf.WolverineSample;

// A Wolverine service reading and writing Schema Registry Protobuf on Kafka. With no arguments it runs on an embedded
// Kafka cluster and an in-process schema registry; give BOOTSTRAP_SERVERS REGISTRY_URL to run it on your own.
using EmbeddedKafkaCluster? cluster = args.Length > 0 ? null : EmbeddedKafkaCluster.Start();
using InProcessSchemaRegistry? registry = args.Length > 1 ? null : InProcessSchemaRegistry.Start();
string bootstrapServers = args.Length > 0 ? args[0] : cluster!.BootstrapServers;
string registryUrl = args.Length > 1 ? args[1] : registry!.Url;
if (cluster is not null)
{
    cluster.CreateTopic(OrdersService.Topic, 1);
    cluster.CreateTopic(OrdersService.DeadLetterTopic, 1);
}

using var timeout = new CancellationTokenSource(TimeSpan.FromMinutes(2));
OrdersService.Outcome outcome = await OrdersService.RunAsync(bootstrapServers, registryUrl, Console.Out, timeout.Token);
Console.WriteLine(outcome.Handled == 4 && outcome.DeadLetters == 1 ? "done" : "something was missed: " + outcome);
return outcome.Handled == 4 && outcome.DeadLetters == 1 ? 0 : 1;
