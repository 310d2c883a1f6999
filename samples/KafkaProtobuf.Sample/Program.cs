// KafkaProtobuf sample: an order stream with several Protobuf message types on one topic, produced with the package's
// serializer and consumed through ConsumerBuilder with its deserializers; poison records go to a dead-letter topic.
// Producers register shop.proto in a Schema Registry; the consumer resolves each record's schema id or GUID to the
// writer's file and reads its type by name. With no arguments it runs on an embedded Kafka cluster (librdkafka's mock)
// and an in-process registry, 127.0.0.1 only; --bootstrap-servers host:port [--topic name] uses a real cluster and
// --schema-registry-url URL a real registry.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Linq;
using System.Threading;
using Confluent.Kafka;
using Confluent.Kafka.Admin;
using Google.Protobuf;
using KafkaProtobuf;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Sample;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Testing.SchemaRegistry;
using Shop.V1;

const int Orders = 3_000;
string? bootstrapServers = ArgumentAfter(args, "--bootstrap-servers");
string? registryUrl = ArgumentAfter(args, "--schema-registry-url");
string topic = ArgumentAfter(args, "--topic") ?? "shop.orders";
string deadLetterTopic = topic + ".dlq";

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
    EnableAutoOffsetStore = false, // at least once: store a record's offset after handling it; auto-commit sends them
    SessionTimeoutMs = 6000,
};

// 1. Produce: records framed by RegistryProtobufSerializer<T>, which registers shop.proto (see ShopTraffic.cs).
int produced = 0;
ShopTraffic traffic = await ShopTraffic.RegisterAsync(registry, topic);
using (IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(producerConfig).Build())
{
    foreach (Message<byte[], byte[]> record in traffic.Records(topic, Orders))
    {
        producer.Produce(topic, record);
        produced++;
    }

    producer.Flush(TimeSpan.FromSeconds(60));
}

Console.WriteLine($"Produced {produced:N0} records to '{topic}': orders placed, shipped and cancelled, tombstones, and a few poison records.");

// 2. Consume: values are any type of shop.proto; each record's path is read in the writer's file from the registry
//    and its type matched by name.
using IConsumer<OrderKey, IMessage> consumer = new ConsumerBuilder<OrderKey, IMessage>(consumerConfig)
    .SetProtobufKeyDeserializer()
    .SetProtobufValueDeserializer(registry, ShopReflection.Descriptor)
    .Build();
using IProducer<byte[], byte[]> deadLetters = new ProducerBuilder<byte[], byte[]>(producerConfig).Build();
consumer.Subscribe(topic);

var counts = new SortedDictionary<string, int>(StringComparer.Ordinal);
var errors = new SortedDictionary<string, int>(StringComparer.Ordinal);
long bytes = 0;
int consumed = 0, deadLettered = 0;
long revenueCents = 0;
Stopwatch? clock = null;
var progress = Stopwatch.StartNew();
DateTime deadline = DateTime.UtcNow.AddSeconds(90);

while (consumed < produced && DateTime.UtcNow < deadline)
{
    try
    {
        ConsumeResult<OrderKey, IMessage>? result = consumer.Consume(TimeSpan.FromMilliseconds(250));
        if (result is null)
        {
            continue;
        }

        clock ??= Stopwatch.StartNew();
        consumed++;
        bytes += result.Message.Value?.CalculateSize() ?? 0;
        switch (result.Message.Value)
        {
            case OrderPlaced placed:
                revenueCents += placed.Lines.Sum(line => line.Quantity * line.UnitPriceCents);
                Count(counts, "orders placed");
                break;
            case OrderShipped:
                Count(counts, "orders shipped");
                break;
            case OrderCancelled:
                Count(counts, "orders cancelled");
                break;
            case null:
                Count(counts, "tombstones");
                break;
        }

        consumer.StoreOffset(result);
    }
    catch (ConsumeException e) when (e.IsDeserializationFailure())
    {
        try
        {
            // Copy the record byte for byte to the dead-letter topic, then store the offset past it.
            consumer.DeadLetter(e, deadLetters, deadLetterTopic, TimeSpan.FromSeconds(10));
            clock ??= Stopwatch.StartNew();
            consumed++;
            deadLettered++;
            Count(errors, (e.InnerException as InvalidFrameException)?.ErrorCode.ToString() ?? e.Error.Reason);
        }
        catch (DeadLetterException d) when (d.IsRetriable)
        {
            // Not written; the consumer was moved back to the record, which comes again after a pause.
            Console.Error.WriteLine(d.Message);
            Thread.Sleep(TimeSpan.FromSeconds(1));
        }
    }
    catch (ConsumeException e) when (e.IsSchemaUnavailable())
    {
        // The registry could not be asked: the record is fine. Go back to it and read it again after a pause.
        Console.Error.WriteLine(e.InnerException!.Message);
        consumer.Seek(e.ConsumerRecord.TopicPartitionOffset);
        Thread.Sleep(TimeSpan.FromSeconds(1));
    }
    catch (ConsumeException e) when (e.IsRecoverableConsumerError())
    {
        // A broker or consumer error, not a record (a fetch that timed out): librdkafka retries it; carry on.
        Console.Error.WriteLine(e.Error.Reason);
    }

    if (progress.ElapsedMilliseconds >= 200)
    {
        progress.Restart();
        Progress($"consumed {consumed:N0}/{produced:N0}");
    }
}

consumer.Commit();
consumer.Close();
Progress(string.Empty);

double seconds = clock?.Elapsed.TotalSeconds ?? 0;
Console.WriteLine($"Consumed {consumed:N0} of {produced:N0} records in {seconds:0.00} s ({consumed / Math.Max(seconds, 1e-9):N0} records/s, {bytes / 1024.0:N0} KB of Protobuf payload).");
Console.WriteLine("  " + string.Join(", ", counts.Select(c => $"{c.Value:N0} {c.Key}")) + $"; revenue {revenueCents / 100.0:N2}");
Console.WriteLine("  errors by code: " + (errors.Count == 0 ? "none" : string.Join(", ", errors.Select(e => $"{e.Key} x{e.Value}"))));
Console.WriteLine($"  dead-lettered: {deadLettered} records to '{deadLetterTopic}'");
return consumed == produced ? 0 : 1;

static void Count(SortedDictionary<string, int> counts, string what) => counts[what] = counts.GetValueOrDefault(what) + 1;

static void Progress(string text)
{
    if (!Console.IsOutputRedirected)
    {
        Console.Write("\r" + text.PadRight(40) + (text.Length == 0 ? "\r" : string.Empty));
    }
}

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
