using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using Confluent.Kafka;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
using Shop.V1;
using Xunit;

namespace KafkaProtobuf.Tests.Tool;

/// <summary>The records and files the tool's process tests feed it.</summary>
internal static class OrderTopic
{
    private static readonly TimeSpan Deadline = TimeSpan.FromSeconds(60);

    private static IMessage Order(int i) => (i % 3) switch
    {
        0 => new OrderPlaced { OrderId = "o-" + i, Customer = "c-" + i, Lines = { new OrderPlaced.Types.Line { Sku = "sku-" + i, Quantity = i + 1, UnitPriceCents = 1999 } } },
        1 => new OrderShipped { OrderId = "o-" + i, Carrier = "bpost", Address = new OrderShipped.Types.Address { City = "Ghent", Country = "BE" } },
        _ => new OrderCancelled { OrderId = "o-" + i, Reason = "changed mind" },
    };

    /// <summary>
    /// Six orders of the sample's types (keys framed as OrderKey, values as the order types), registered by the
    /// registering serializer, and a poison record (a JSON value) at offset 3: seven records in a one-partition topic.
    /// </summary>
    public static List<IMessage> Produce(EmbeddedKafkaCluster cluster, InProcessSchemaRegistry registry, string topic)
    {
        cluster.CreateTopic(topic, 1);
        using var client = new RegistryClient(registry.Url);
        var orders = Enumerable.Range(0, 6).Select(Order).ToList();
        var keys = new RegistryProtobufSerializer<OrderKey>(client, null);
        var keyContext = new SerializationContext(MessageComponentType.Key, topic, []);
        var valueContext = new SerializationContext(MessageComponentType.Value, topic, []);
        using IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(cluster.CreateProducerConfig()).Build();
        for (int i = 0; i < orders.Count; i++)
        {
            if (i == 3)
            {
                byte[] poisonKey = keys.Serialize(new OrderKey { OrderId = "o-x" }, keyContext)!;
                producer.Produce(new TopicPartition(topic, 0), new Message<byte[], byte[]> { Key = poisonKey, Value = Encoding.UTF8.GetBytes("{\"orderId\":\"o-x\"}") });
            }

            byte[]? value = orders[i] switch
            {
                OrderPlaced m => new RegistryProtobufSerializer<OrderPlaced>(client, null).Serialize(m, valueContext),
                OrderShipped m => new RegistryProtobufSerializer<OrderShipped>(client, null).Serialize(m, valueContext),
                OrderCancelled m => new RegistryProtobufSerializer<OrderCancelled>(client, null).Serialize(m, valueContext),
                _ => throw new InvalidOperationException(),
            };
            byte[] key = keys.Serialize(new OrderKey { OrderId = "o-" + i }, keyContext)!;
            producer.Produce(new TopicPartition(topic, 0), new Message<byte[], byte[]> { Key = key, Value = value! });
        }

        Assert.Equal(0, producer.Flush(Deadline));
        return orders;
    }

    /// <summary>Produces raw records to partition 0 of a new one-partition topic.</summary>
    public static void ProduceRaw(EmbeddedKafkaCluster cluster, string topic, params Message<byte[], byte[]>[] records)
    {
        cluster.CreateTopic(topic, 1);
        using IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(cluster.CreateProducerConfig()).Build();
        foreach (Message<byte[], byte[]> record in records)
        {
            producer.Produce(new TopicPartition(topic, 0), record);
        }

        Assert.Equal(0, producer.Flush(Deadline));
    }

    /// <summary>Writes a protoc-style descriptor set of files (imports first) to a temporary file: its path.</summary>
    public static string WriteDescriptorSet(ICollection<string> cleanUp, params FileDescriptor[] files)
    {
        string path = Path.GetTempFileName();
        cleanUp.Add(path);
        var set = new FileDescriptorSet();
        foreach (FileDescriptor file in files)
        {
            set.File.Add(FileDescriptorProto.Parser.ParseFrom(file.SerializedData));
        }

        File.WriteAllBytes(path, set.ToByteArray());
        return path;
    }
}
