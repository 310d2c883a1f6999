// KafkaProtobuf sample: an order stream with several Protobuf message types on one topic, produced with the package's
// serializer and consumed by the hosted consumer (KafkaProtobuf.Hosting) with its deserializers; poison records go to
// a dead-letter topic.
// Producers register shop.proto in a Schema Registry; the consumer resolves each record's schema id or GUID to the
// writer's file and reads its type by name. With no arguments it runs on an embedded Kafka cluster (librdkafka's mock)
// and an in-process registry, 127.0.0.1 only; --bootstrap-servers host:port [--topic name] uses a real cluster and
// --schema-registry-url URL a real registry. While it runs, the operations page (KafkaProtobuf.AspNetCore) shows the
// consumer and its dead letters at http://127.0.0.1:5080/kafka/ (--page-port N another port); --keep-running keeps it
// up after the report, until Ctrl+C, to look and redrive.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Linq;
using System.Threading.Tasks;
using Confluent.Kafka;
using Confluent.Kafka.Admin;
using Google.Protobuf;
using KafkaProtobuf;
using KafkaProtobuf.AspNetCore;
using KafkaProtobuf.Diagnostics;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.Sample;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Shop.V1;

const int Orders = 3_000;
string? bootstrapServers = ArgumentAfter(args, "--bootstrap-servers");
string? registryUrl = ArgumentAfter(args, "--schema-registry-url");
string topic = ArgumentAfter(args, "--topic") ?? "shop.orders";
string deadLetterTopic = topic + ".dlq";
string pagePort = ArgumentAfter(args, "--page-port") ?? "5080";
bool keepRunning = Array.IndexOf(args, "--keep-running") >= 0;

using EmbeddedKafkaCluster? cluster = bootstrapServers is null ? EmbeddedKafkaCluster.Start(3) : null;
if (cluster is not null)
{
    bootstrapServers = cluster.BootstrapServers;
    cluster.CreateTopic(topic, 6);
    cluster.CreateTopic(deadLetterTopic, 1);
    Console.WriteLine($"Embedded Kafka: 3 brokers at {bootstrapServers}");
}
else
{
    await CreateTopicsIfMissing(bootstrapServers!, topic, deadLetterTopic);
    Console.WriteLine($"Kafka at {bootstrapServers}");
}

using InProcessSchemaRegistry? inProcessRegistry = registryUrl is null ? InProcessSchemaRegistry.Start() : null;
registryUrl ??= inProcessRegistry!.Url;
Console.WriteLine((inProcessRegistry is null ? "Schema Registry at " : "In-process Schema Registry at ") + registryUrl);
using var registry = new RegistryClient(registryUrl);

var producerConfig = new ProducerConfig { BootstrapServers = bootstrapServers, Acks = Acks.All, EnableIdempotence = true, LingerMs = 5 };
var consumerConfig = new ConsumerConfig
{
    BootstrapServers = bootstrapServers,
    GroupId = "kafkaprotobuf-sample-" + Guid.NewGuid().ToString("N")[..8],
    AutoOffsetReset = AutoOffsetReset.Earliest,
    SessionTimeoutMs = 6000, // the offset settings are the hosted consumer's: it stores each offset once the record is handled
};

// 1. Produce: records framed by RegistryProtobufSerializer<T>, which registers shop.proto (see ShopTraffic.cs). The
//    first is written inside a checkout request's span, whose context goes into its headers (KafkaTraceContext).
int produced = 0;
ShopTraffic traffic = await ShopTraffic.RegisterAsync(registry, topic);
using var trace = new TraceSummary();
using (IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(producerConfig).Build())
{
    foreach (Message<byte[], byte[]> record in traffic.Records(topic, Orders))
    {
        if (produced == 0)
        {
            using Activity checkout = trace.Begin("POST /checkout");
            KafkaTraceContext.Inject(record.Headers);
            producer.Produce(topic, record);
        }
        else
        {
            producer.Produce(topic, record);
        }

        produced++;
    }

    producer.Flush(TimeSpan.FromSeconds(60));
}

Console.WriteLine($"Produced {produced:N0} records to '{topic}': orders placed, shipped and cancelled, tombstones, and a few poison records.");

// 2. Consume with the hosted consumer (KafkaProtobuf.Hosting) in a generic host: values are any type of shop.proto;
//    each record's path is read in the writer's file from the registry and its type matched by name. The package
//    stores each offset once OrderHandler returned, dead-letters the poison records byte for byte, and commits and
//    leaves the group when the host stops.
using var tally = new Tally(produced);
WebApplicationBuilder builder = WebApplication.CreateBuilder(new WebApplicationOptions { Args = [], EnvironmentName = "Production" });
builder.WebHost.UseUrls("http://127.0.0.1:" + pagePort);
builder.Logging.ClearProviders().AddSimpleConsole(o => o.SingleLine = true).SetMinimumLevel(LogLevel.Information)
    .AddFilter("Microsoft.Hosting.Lifetime", LogLevel.Warning).AddFilter("Microsoft.AspNetCore", LogLevel.Warning);
builder.Services.AddSingleton(registry);
builder.Services.AddSingleton(tally);
builder.Services
    .AddKafkaProtobufConsumer<OrderKey, IMessage>("shop", options =>
    {
        options.Consumer = consumerConfig;
        options.Topics.Add(topic);
        options.DeadLetterTopic = deadLetterTopic;
        options.CopyProducer = producerConfig;
    })
    .WithProtobufKeys()
    .WithProtobufValues(services => services.GetRequiredService<RegistryClient>(), ShopReflection.Descriptor)
    .HandleWith<OrderHandler>();
builder.Services.AddHealthChecks().AddKafkaProtobufConsumers();
builder.Services.AddAntiforgery();

// 3. The operations page (KafkaProtobuf.AspNetCore): the consumer live, its dead letters decoded, redrive. A service
//    maps it behind its authorization policies; the sample, on 127.0.0.1, opens it to this machine only.
await using (WebApplication host = builder.Build())
{
    host.MapKafkaProtobufOperations("/kafka", page =>
    {
        page.AllowAnonymousOnLoopback = true;
        page.Kafka = new ClientConfig { BootstrapServers = bootstrapServers };
        page.WriterSchemaSource = registry;
    });
    await host.StartAsync();
    string pageUrl = host.Urls.First() + "/kafka/";
    Console.WriteLine($"Operations page: {pageUrl}");
    await Task.WhenAny(tally.AllDone, Task.Delay(TimeSpan.FromSeconds(90)));
    HealthReport health = await host.Services.GetRequiredService<HealthCheckService>().CheckHealthAsync();
    Console.WriteLine($"Health while running: {health.Status} ({health.Entries.Values.Single().Description})");
    if (keepRunning)
    {
        Console.WriteLine($"Keeping the consumer and the page at {pageUrl} up: Ctrl+C stops them.");
        await host.WaitForShutdownAsync();
    }

    await host.StopAsync();
}

Console.WriteLine(tally.Summary());
Console.WriteLine($"  dead-lettered: {tally.DeadLettered} records to '{deadLetterTopic}'");
Console.WriteLine(trace.Describe());
return tally.Handled + tally.DeadLettered == produced ? 0 : 1;

static string? ArgumentAfter(string[] args, string name)
{
    int at = Array.IndexOf(args, name);
    return at >= 0 && at + 1 < args.Length ? args[at + 1] : null;
}

static async System.Threading.Tasks.Task CreateTopicsIfMissing(string bootstrapServers, params string[] topics)
{
    using IAdminClient admin = new AdminClientBuilder(new AdminClientConfig { BootstrapServers = bootstrapServers }).Build();
    try
    {
        await admin.CreateTopicsAsync(topics.Select(t => new TopicSpecification { Name = t, NumPartitions = t.EndsWith(".dlq", StringComparison.Ordinal) ? 1 : 6, ReplicationFactor = -1 }));
    }
    catch (CreateTopicsException e) when (e.Results.All(r => r.Error.Code is ErrorCode.NoError or ErrorCode.TopicAlreadyExists))
    {
        // already there
    }
}
