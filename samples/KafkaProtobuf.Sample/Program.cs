// KafkaProtobuf sample: produce Schema Registry framed Protobuf records and consume them with one line of set-up.
// With no arguments it starts librdkafka's in-process mock cluster on 127.0.0.1; with
// --bootstrap-servers host:port [--topic name] it uses a real cluster instead.
using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using Confluent.Kafka;
using KafkaProtobuf;
using Shop.V1;

string? bootstrapServers = ArgumentAfter(args, "--bootstrap-servers");
string topic = ArgumentAfter(args, "--topic") ?? "orders-" + Guid.NewGuid().ToString("N")[..8];

// The mock cluster lives as long as the producer that started it.
IProducer<byte[], byte[]>? mockClusterOwner = null;
if (bootstrapServers is null)
{
    var mockConfig = new ProducerConfig();
    mockConfig.Set("test.mock.num.brokers", "3");
    mockClusterOwner = new ProducerBuilder<byte[], byte[]>(mockConfig)
        .SetLogHandler((_, log) => { if (log.Level <= SyslogLevel.Warning) { Console.Error.WriteLine(log.Message); } })
        .Build();
    using IAdminClient admin = new DependentAdminClientBuilder(mockClusterOwner.Handle).Build();
    bootstrapServers = string.Join(",", admin.GetMetadata(TimeSpan.FromSeconds(10)).Brokers.Select(b => $"127.0.0.1:{b.Port}"));
    Console.WriteLine($"Embedded Kafka (librdkafka mock cluster, 3 brokers) at {bootstrapServers}");
}

var producerConfig = new ProducerConfig { BootstrapServers = bootstrapServers, Acks = Acks.All, EnableIdempotence = true };
int produced = 0;

// Schema id 1 for keys and 2 for values, in the record's prefix (what most producers write).
using (IProducer<OrderKey, OrderPlaced> producer = new ProducerBuilder<OrderKey, OrderPlaced>(producerConfig)
    .SetProtobufKeySerializer(SchemaIdentifier.FromId(1))
    .SetProtobufValueSerializer(SchemaIdentifier.FromId(2))
    .Build())
{
    for (int i = 1; i <= 4; i++)
    {
        producer.Produce(topic, new Message<OrderKey, OrderPlaced> { Key = Key(i), Value = Order(i) });
        produced++;
    }

    producer.Produce(topic, new Message<OrderKey, OrderPlaced> { Key = Key(2), Value = null! }); // tombstone: order 2 deleted
    produced++;
    producer.Flush(TimeSpan.FromSeconds(30));
}

// The value's schema GUID in the __value_schema_id header instead (Confluent's header strategy).
using (IProducer<OrderKey, OrderPlaced> producer = new ProducerBuilder<OrderKey, OrderPlaced>(producerConfig)
    .SetProtobufKeySerializer(SchemaIdentifier.FromId(1))
    .SetProtobufValueSerializer(
        SchemaIdentifier.FromGuid(Guid.Parse("535dfcf3-ca23-439a-a2aa-7cf32e6ddf10")),
        new FramedSerializerOptions { SchemaIdPlacement = SchemaIdPlacement.Header })
    .Build())
{
    producer.Produce(topic, new Message<OrderKey, OrderPlaced> { Key = Key(5), Value = Order(5) });
    produced++;
    producer.Flush(TimeSpan.FromSeconds(30));
}

// A poison record: somebody wrote JSON to a Protobuf topic.
using (IProducer<byte[], byte[]> raw = new ProducerBuilder<byte[], byte[]>(producerConfig).Build())
{
    byte[] key = new FramedProtobufSerializer<OrderKey>(SchemaIdentifier.FromId(1)).Serialize(Key(6), SerializationContext.Empty)!;
    raw.Produce(topic, new Message<byte[], byte[]> { Key = key, Value = Encoding.UTF8.GetBytes("{\"order_id\":\"o-6\"}") });
    produced++;
    raw.Flush(TimeSpan.FromSeconds(30));
}

Console.WriteLine($"Produced {produced} records to '{topic}'.");
Console.WriteLine();

// The consumer: one line each for keys and values.
var consumerConfig = new ConsumerConfig
{
    BootstrapServers = bootstrapServers,
    GroupId = "kafkaprotobuf-sample-" + Guid.NewGuid().ToString("N"),
    AutoOffsetReset = AutoOffsetReset.Earliest,
    EnableAutoCommit = false,
};
using IConsumer<OrderKey, OrderPlaced> consumer = new ConsumerBuilder<OrderKey, OrderPlaced>(consumerConfig)
    .SetProtobufKeyDeserializer()
    .SetProtobufValueDeserializer()
    .Build();

// Assigning the partitions directly avoids the consumer-group join, which takes seconds.
using (IAdminClient admin = new AdminClientBuilder(new AdminClientConfig { BootstrapServers = bootstrapServers }).Build())
{
    Metadata metadata = admin.GetMetadata(topic, TimeSpan.FromSeconds(10));
    consumer.Assign(metadata.Topics.Single().Partitions.Select(p => new TopicPartitionOffset(topic, p.PartitionId, Offset.Beginning)));
}

int consumed = 0;
var errors = new Dictionary<FrameErrorCode, int>();
DateTime deadline = DateTime.UtcNow.AddSeconds(30);
while (consumed < produced && DateTime.UtcNow < deadline)
{
    try
    {
        ConsumeResult<OrderKey, OrderPlaced>? result = consumer.Consume(TimeSpan.FromMilliseconds(250));
        if (result is null)
        {
            continue;
        }

        consumed++;
        string value = result.Message.Value is { } order
            ? $"{order.Customer} ordered {order.Lines.Sum(l => l.Quantity)} items for {order.Lines.Sum(l => l.Quantity * l.UnitPriceCents) / 100.0:0.00}"
            : "(tombstone)";
        string placement = result.Message.Value is null ? string.Empty
            : result.Message.Headers.TryGetLastBytes(SchemaIdHeaderNames.Value, out _) ? " [schema id in header]" : " [schema id in prefix]";
        Console.WriteLine($"  p{result.Partition.Value}@{result.Offset.Value} {result.Message.Key.OrderId}: {value}{placement}");
    }
    catch (ConsumeException e) when (e.InnerException is InvalidFrameException bad)
    {
        // The consumer has moved past the record; e.ConsumerRecord holds its raw key, value and headers.
        consumed++;
        errors[bad.ErrorCode] = errors.GetValueOrDefault(bad.ErrorCode) + 1;
        Console.WriteLine($"  p{e.ConsumerRecord.Partition.Value}@{e.ConsumerRecord.Offset.Value} rejected: {bad.Message}");
    }
}

Console.WriteLine();
Console.WriteLine($"Consumed {consumed} of {produced} records; errors: {(errors.Count == 0 ? "none" : string.Join(", ", errors.Select(e => $"{e.Key} x{e.Value}")))}");
consumer.Close();
mockClusterOwner?.Dispose();
return consumed == produced ? 0 : 1;

static string? ArgumentAfter(string[] args, string name)
{
    int at = Array.IndexOf(args, name);
    return at >= 0 && at + 1 < args.Length ? args[at + 1] : null;
}

static OrderKey Key(int i) => new() { OrderId = $"o-{i}" };

static OrderPlaced Order(int i) => new()
{
    OrderId = $"o-{i}",
    Customer = new[] { "ada", "grace", "linus", "barbara", "ken" }[i % 5],
    PlacedAtUnixMs = 1_700_000_000_000 + i,
    Lines =
    {
        new OrderPlaced.Types.Line { Sku = "sku-" + i, Quantity = i, UnitPriceCents = 250 },
        new OrderPlaced.Types.Line { Sku = "sku-x", Quantity = 1, UnitPriceCents = 999 },
    },
};
