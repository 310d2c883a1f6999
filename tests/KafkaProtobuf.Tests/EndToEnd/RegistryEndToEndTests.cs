using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using System.Threading;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Framing;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tests.Support;
using Xunit;
using Xunit.Abstractions;
using Reader = KafkaProtobuf.Tests.Shop.Reader;
using Writer = KafkaProtobuf.Tests.Shop.Writer;

namespace KafkaProtobuf.Tests.EndToEnd;

/// <summary>
/// Producers that register their schemas and consumers that resolve the writer's schema by name, over the embedded
/// Kafka cluster and the in-process registry: a reader .proto with reordered messages, ids and GUIDs, and a registry
/// outage in the middle of a stream.
/// </summary>
public sealed class RegistryEndToEndTests(ITestOutputHelper output) : IDisposable
{
    private static readonly TimeSpan Deadline = TimeSpan.FromSeconds(60);

    private readonly EmbeddedKafkaCluster _cluster = EmbeddedKafkaCluster.Start(3);
    private readonly InProcessSchemaRegistry _registry = InProcessSchemaRegistry.Start();

    public void Dispose()
    {
        _registry.Dispose();
        _cluster.Dispose();
    }

    /// <summary>The stream: the three types and a nested one, in turn, each record's order id its sequence number.</summary>
    private static IMessage WriterMessage(int i) => (i % 4) switch
    {
        0 => new Writer.OrderPlaced { OrderId = "o-" + i, Lines = { new Writer.OrderPlaced.Types.Line { Sku = "sku-" + i, Quantity = i } }, Total = new Writer.Money { Currency = "EUR", Units = i } },
        1 => new Writer.OrderShipped { OrderId = "o-" + i, To = new Writer.Address { City = "Ghent" }, Carrier = new Writer.OrderShipped.Types.Carrier { Name = "c" } },
        2 => new Writer.OrderCancelled { OrderId = "o-" + i, Reason = "r" },
        _ => new Writer.OrderShipped.Types.Carrier { Name = "carrier-" + i, Tracking = "t" },
    };

    /// <summary>Frames a record with the registering serializer of its type, prefix (id) or header (GUID) placement.</summary>
    private static Message<byte[], byte[]> Frame(RegistryClient registry, string topic, IMessage message, SchemaIdPlacement placement)
    {
        var options = new RegistrySerializerOptions { SchemaIdPlacement = placement };
        var headers = new Headers();
        var context = new SerializationContext(MessageComponentType.Value, topic, headers);
        byte[]? value = message switch
        {
            Writer.OrderPlaced m => new RegistryProtobufSerializer<Writer.OrderPlaced>(registry, options).Serialize(m, context),
            Writer.OrderShipped m => new RegistryProtobufSerializer<Writer.OrderShipped>(registry, options).Serialize(m, context),
            Writer.OrderCancelled m => new RegistryProtobufSerializer<Writer.OrderCancelled>(registry, options).Serialize(m, context),
            Writer.OrderShipped.Types.Carrier m => new RegistryProtobufSerializer<Writer.OrderShipped.Types.Carrier>(registry, options).Serialize(m, context),
            _ => throw new ArgumentException("not a stream type", nameof(message)),
        };
        return new Message<byte[], byte[]> { Value = value!, Headers = headers };
    }

    private void Produce(string topic, IEnumerable<Message<byte[], byte[]>> records)
    {
        using IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(_cluster.CreateProducerConfig()).Build();
        foreach (Message<byte[], byte[]> record in records)
        {
            producer.Produce(new TopicPartition(topic, 0), record);
        }

        Assert.Equal(0, producer.Flush(Deadline));
    }

    private List<ConsumeResult<Ignore, IMessage>> ConsumeAll(string topic, IDeserializer<IMessage> deserializer, int count, List<ConsumeException> errors)
    {
        using IConsumer<Ignore, IMessage> consumer = new ConsumerBuilder<Ignore, IMessage>(_cluster.CreateConsumerConfig()).SetValueDeserializer(deserializer).Build();
        consumer.Assign(new TopicPartitionOffset(topic, 0, Offset.Beginning));
        var results = new List<ConsumeResult<Ignore, IMessage>>();
        DateTime deadline = DateTime.UtcNow + Deadline;
        while (results.Count + errors.Count < count && DateTime.UtcNow < deadline)
        {
            try
            {
                if (consumer.Consume(TimeSpan.FromMilliseconds(100)) is { } result)
                {
                    results.Add(result);
                }
            }
            catch (ConsumeException e)
            {
                errors.Add(e);
            }
        }

        return results;
    }

    [Fact]
    public void RecordsRegisteredByTheWriter_AreReadByNameInAReorderedReaderProto_WithIdsAndGuids()
    {
        const int count = 400;
        _cluster.CreateTopic("orders", 1);
        var written = new List<IMessage>();
        using (var producerRegistry = new RegistryClient(_registry.Url))
        {
            Produce("orders", Enumerable.Range(0, count).Select(i =>
            {
                IMessage message = WriterMessage(i);
                written.Add(message);
                return Frame(producerRegistry, "orders", message, i % 3 == 0 ? SchemaIdPlacement.Header : SchemaIdPlacement.Prefix);
            }).ToList());
        }

        // By name, in the writer's file from the registry: every record is the reader's type of the same name, same content.
        using var consumerRegistry = new RegistryClient(_registry.Url);
        var byName = new MultiTypeProtobufDeserializer([Reader.OrdersReflection.Descriptor], new MultiTypeDeserializerOptions { WriterSchemas = { Source = consumerRegistry } });
        var errors = new List<ConsumeException>();
        List<ConsumeResult<Ignore, IMessage>> read = ConsumeAll("orders", byName, count, errors);
        Assert.Empty(errors);
        Assert.Equal(count, read.Count);
        for (int i = 0; i < count; i++)
        {
            IMessage message = read[i].Message.Value;
            Assert.Equal(written[i].Descriptor.FullName, message.Descriptor.FullName);
            Assert.StartsWith("KafkaProtobuf.Tests.Shop.Reader.", message.GetType().FullName, StringComparison.Ordinal);
            Assert.Equal(written[i].ToByteArray(), message.ToByteArray());
        }

        // What this fixes: by path in the reader's own file, OrderPlaced [0] reads as the reader's OrderCancelled, and so on.
        var errorsByPath = new List<ConsumeException>();
        List<ConsumeResult<Ignore, IMessage>> byPath = ConsumeAll("orders", MultiTypeProtobufDeserializer.ForFiles(Reader.OrdersReflection.Descriptor), count, errorsByPath);
        int wrongType = byPath.Count(r => r.Message.Value.Descriptor.FullName != written[(int)r.Offset.Value].Descriptor.FullName);
        output.WriteLine($"by path: {byPath.Count - wrongType} right, {wrongType} wrong type, {errorsByPath.Count} rejected; by name: {count} right");
        // Every OrderPlaced and OrderCancelled is read as the other type (silently, when its bytes happen to parse) or rejected.
        Assert.Equal(count / 2, wrongType + errorsByPath.Count);
        Assert.True(wrongType > 0, "some records are silently read as the wrong type");
    }

    [Fact]
    public void ARegistryOutageMidStream_DeadLettersNothingGood_AndLosesNothingOnceTheRegistryIsBack()
    {
        _cluster.CreateTopic("orders", 1);
        _cluster.CreateTopic("orders.dlq", 1);
        var poisonOffsets = new HashSet<long>();
        using (var producerRegistry = new RegistryClient(_registry.Url))
        {
            // 200 records framed with the schema id, then 200 with the schema GUID: a new key for the consumer's cache.
            var records = new List<Message<byte[], byte[]>>();
            for (int i = 0; i < 400; i++)
            {
                if (i % 50 == 25)
                {
                    poisonOffsets.Add(records.Count);
                    records.Add(new Message<byte[], byte[]> { Value = Encoding.UTF8.GetBytes("{\"poison\":" + i + "}") });
                }

                records.Add(Frame(producerRegistry, "orders", WriterMessage(i), i < 200 ? SchemaIdPlacement.Prefix : SchemaIdPlacement.Header));
            }

            Produce("orders", records);
        }

        int total = 400 + poisonOffsets.Count;
        using var consumerRegistry = new RegistryClient(new RegistryClientOptions { Urls = { _registry.Url }, MaxRetries = 0, RequestTimeout = TimeSpan.FromSeconds(2) });
        ConsumerConfig config = _cluster.CreateConsumerConfig();
        config.EnableAutoCommit = true;
        config.EnableAutoOffsetStore = false;
        using IConsumer<Ignore, IMessage> consumer = new ConsumerBuilder<Ignore, IMessage>(config)
            .SetProtobufValueDeserializer(consumerRegistry, Reader.OrdersReflection.Descriptor)
            .Build();
        using IProducer<byte[], byte[]> deadLetters = new ProducerBuilder<byte[], byte[]>(_cluster.CreateProducerConfig()).Build();
        consumer.Subscribe("orders");

        RecommendedLoop<Ignore, IMessage> loop = null!;
        loop = new RecommendedLoop<Ignore, IMessage>(consumer, deadLetters, "orders.dlq", DeadLetterOffsetHandling.Store)
        {
            BeforeDeadLetter = _ =>
            {
                if (_registry.IsRunning && loop!.Good.Count >= 50)
                {
                    _registry.Stop(); // the id is cached by now; the GUID records will need the registry
                }
            },
            AfterSchemaUnavailable = _ =>
            {
                if (loop!.SchemaUnavailable.Count == 5)
                {
                    _registry.StartAgain();
                }
            },
        };
        using var stop = new CancellationTokenSource(Deadline);
        Thread thread = loop.Start(stop.Token);
        while (thread.IsAlive && !stop.IsCancellationRequested && loop.Good.Select(r => r.Offset.Value).Distinct().Count() + loop.DeadLettered.Count < total)
        {
            Thread.Sleep(20);
        }

        stop.Cancel();
        Assert.True(thread.Join(Deadline));

        Assert.Null(loop.Escaped);
        Assert.True(loop.SchemaUnavailable.Count >= 5, $"{loop.SchemaUnavailable.Count} unavailable schemas seen");
        Assert.All(loop.SchemaUnavailable, e => Assert.IsType<SchemaUnavailableException>(e.InnerException));
        Assert.Equal(Enumerable.Range(0, total).Where(o => !poisonOffsets.Contains(o)).Select(o => (long)o), loop.Good.Select(r => r.Offset.Value).Distinct().Order());
        Assert.Equal(poisonOffsets.Order(), loop.DeadLettered.Select(d => d.Record.Offset.Value).Order()); // only the poison records
        output.WriteLine($"{loop.SchemaUnavailable.Count} records met the outage and were read again; {loop.DeadLettered.Count} dead letters, all poison");
    }

    [Fact]
    public void RegisteredKeysAndValues_AreReadAsTheirTypesWithOneLineEach_IdsInPrefixesAndGuidsInHeaders()
    {
        const int perPlacement = 60;
        _cluster.CreateTopic("orders", 1);
        var written = new List<(Writer.OrderKey Key, Writer.OrderCancelled Value)>();
        using (var producerRegistry = new RegistryClient(_registry.Url))
        {
            // One producer frames with the schema ids in the prefix, the other with the GUIDs in __key_schema_id and __value_schema_id.
            foreach (SchemaIdPlacement placement in new[] { SchemaIdPlacement.Prefix, SchemaIdPlacement.Header })
            {
                var options = new RegistrySerializerOptions { SchemaIdPlacement = placement };
                using IProducer<Writer.OrderKey, Writer.OrderCancelled> producer = new ProducerBuilder<Writer.OrderKey, Writer.OrderCancelled>(_cluster.CreateProducerConfig())
                    .SetProtobufKeySerializer(producerRegistry, options)
                    .SetProtobufValueSerializer(producerRegistry, options)
                    .Build();
                for (int i = 0; i < perPlacement; i++)
                {
                    var record = (new Writer.OrderKey { OrderId = "o-" + written.Count, Region = "eu-" + (i % 3) }, new Writer.OrderCancelled { OrderId = "o-" + written.Count, Reason = placement.ToString() });
                    written.Add(record);
                    producer.Produce(new TopicPartition("orders", 0), new Message<Writer.OrderKey, Writer.OrderCancelled> { Key = record.Item1, Value = record.Item2 });
                }

                Assert.Equal(0, producer.Flush(Deadline));
            }
        }

        Assert.True(_registry.RequestCount("/subjects/orders-key/versions") > 0, "the keys' schema is registered under orders-key");

        // The reader declares OrderKey at another path ([1] instead of [2]): only by name in the writer's schema from the
        // registry is it found (VerifyWriterType), through the id in the prefix or the GUID in __key_schema_id.
        using var consumerRegistry = new RegistryClient(_registry.Url);
        using IConsumer<Reader.OrderKey, Reader.OrderCancelled> consumer = new ConsumerBuilder<Reader.OrderKey, Reader.OrderCancelled>(_cluster.CreateConsumerConfig())
            .SetProtobufKeyDeserializer(consumerRegistry)
            .SetProtobufValueDeserializer(consumerRegistry)
            .Build();
        consumer.Assign(new TopicPartitionOffset("orders", 0, Offset.Beginning));
        var read = new List<ConsumeResult<Reader.OrderKey, Reader.OrderCancelled>>();
        DateTime deadline = DateTime.UtcNow + Deadline;
        while (read.Count < written.Count && DateTime.UtcNow < deadline)
        {
            if (consumer.Consume(TimeSpan.FromMilliseconds(100)) is { } result)
            {
                read.Add(result);
            }
        }

        Assert.Equal(written.Count, read.Count);
        for (int i = 0; i < written.Count; i++)
        {
            Assert.Equal(written[i].Key.ToByteArray(), read[i].Message.Key.ToByteArray());
            Assert.Equal(written[i].Value.ToByteArray(), read[i].Message.Value.ToByteArray());
            bool inHeader = i >= perPlacement;
            Assert.Equal(inHeader, read[i].Message.Headers.TryGetLastBytes(SchemaIdHeaderNames.Key, out byte[] keyHeader));
            Assert.Equal(inHeader, read[i].Message.Headers.TryGetLastBytes(SchemaIdHeaderNames.Value, out _));
            if (inHeader)
            {
                Assert.Equal(0x01, keyHeader[0]); // magic byte 1: a schema GUID
            }
        }

    }

    [Fact]
    public void RegisteredKeysOfSeveralTypes_AreReadByNameWithOneLine_WherePathOnlyReadsThemAsOtherTypes()
    {
        _cluster.CreateTopic("orders", 1);
        var keys = new List<IMessage>();
        using (var producerRegistry = new RegistryClient(_registry.Url))
        {
            var headers = new RegistrySerializerOptions { SchemaIdPlacement = SchemaIdPlacement.Header };
            using IProducer<Writer.OrderKey, Writer.OrderCancelled> byOrder = new ProducerBuilder<Writer.OrderKey, Writer.OrderCancelled>(_cluster.CreateProducerConfig())
                .SetProtobufKeySerializer(producerRegistry).SetProtobufValueSerializer(producerRegistry).Build(); // Confluent's defaults: ids in the prefix
            using IProducer<Writer.CustomerKey, Writer.OrderCancelled> byCustomer = new ProducerBuilder<Writer.CustomerKey, Writer.OrderCancelled>(_cluster.CreateProducerConfig())
                .SetProtobufKeySerializer(producerRegistry, headers).SetProtobufValueSerializer(producerRegistry, headers).Build();
            for (int i = 0; i < 40; i++)
            {
                var value = new Writer.OrderCancelled { OrderId = "o-" + i };
                if (i % 2 == 0)
                {
                    var key = new Writer.OrderKey { OrderId = "o-" + i, Region = "eu" };
                    keys.Add(key);
                    byOrder.Produce(new TopicPartition("orders", 0), new Message<Writer.OrderKey, Writer.OrderCancelled> { Key = key, Value = value });
                    Assert.Equal(0, byOrder.Flush(Deadline)); // in order with the other producer's records
                }
                else
                {
                    var key = new Writer.CustomerKey { CustomerId = "c-" + i };
                    keys.Add(key);
                    byCustomer.Produce(new TopicPartition("orders", 0), new Message<Writer.CustomerKey, Writer.OrderCancelled> { Key = key, Value = value });
                    Assert.Equal(0, byCustomer.Flush(Deadline));
                }
            }
        }

        using var consumerRegistry = new RegistryClient(_registry.Url);
        List<IMessage> byName = ConsumeKeys(new ConsumerBuilder<IMessage, IMessage>(_cluster.CreateConsumerConfig())
            .SetProtobufKeyDeserializer(consumerRegistry, Reader.CommonReflection.Descriptor)
            .SetProtobufValueDeserializer(consumerRegistry, Reader.OrdersReflection.Descriptor), keys.Count, out int rejectedByName);

        Assert.Equal(0, rejectedByName);
        Assert.Equal(keys.Count, byName.Count);
        for (int i = 0; i < keys.Count; i++)
        {
            Assert.Equal(keys[i].Descriptor.FullName, byName[i].Descriptor.FullName);
            Assert.StartsWith("KafkaProtobuf.Tests.Shop.Reader.", byName[i].GetType().FullName, StringComparison.Ordinal);
            Assert.Equal(keys[i].ToByteArray(), byName[i].ToByteArray());
        }

        // What the registry fixes: by path in the reader's file, OrderKey [2] is read as Money and CustomerKey [3] as Address.
        List<IMessage> byPath = ConsumeKeys(new ConsumerBuilder<IMessage, IMessage>(_cluster.CreateConsumerConfig())
            .SetKeyDeserializer(MultiTypeProtobufDeserializer.ForFiles(Reader.CommonReflection.Descriptor))
            .SetValueDeserializer(MultiTypeProtobufDeserializer.ForFiles(Reader.OrdersReflection.Descriptor)), keys.Count, out int rejectedByPath);
        Assert.Equal(keys.Count, byPath.Count + rejectedByPath);
        Assert.DoesNotContain(byPath, key => key.Descriptor.FullName is "shop.v1.OrderKey" or "shop.v1.CustomerKey");
        output.WriteLine($"keys by name: {keys.Count} right; by path: {byPath.Count} read as another type, {rejectedByPath} rejected");
    }

    /// <summary>Reads every key of the orders topic with the given deserializers; a key that cannot be read is counted, not kept.</summary>
    private static List<IMessage> ConsumeKeys(ConsumerBuilder<IMessage, IMessage> builder, int count, out int rejected)
    {
        using IConsumer<IMessage, IMessage> consumer = builder.Build();
        consumer.Assign(new TopicPartitionOffset("orders", 0, Offset.Beginning));
        var keys = new List<IMessage>();
        rejected = 0;
        DateTime deadline = DateTime.UtcNow + Deadline;
        while (keys.Count + rejected < count && DateTime.UtcNow < deadline)
        {
            try
            {
                if (consumer.Consume(TimeSpan.FromMilliseconds(100)) is { } result)
                {
                    keys.Add(result.Message.Key);
                }
            }
            catch (ConsumeException e) when (e.Error.Code == ErrorCode.Local_KeyDeserialization)
            {
                rejected++;
            }
        }

        return keys;
    }
}
