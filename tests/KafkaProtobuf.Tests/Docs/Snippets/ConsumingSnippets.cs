using System;
using System.Threading;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.Framing;
using KafkaProtobuf.SchemaRegistry;
using Shop.V1;

namespace KafkaProtobuf.Tests.Docs.Snippets;

/// <summary>
/// The C# of the README and docs/ about reading records, compiled here so that it cannot rot: each region is a snippet,
/// and DocSnippetTests checks that the docs show exactly these lines. Compiled, not run.
/// </summary>
internal static class ConsumingSnippets
{
    internal static void Hero(ConsumerConfig config)
    {
        #region readme-hero
        using var consumer = new ConsumerBuilder<string, OrderPlaced>(config)
            .SetProtobufValueDeserializer()   // KafkaProtobuf
            .Build();
        #endregion
    }

    internal static void QuickStart(ConsumerConfig consumerConfig, ProducerConfig producerConfig)
    {
        #region readme-quick-start
        // Consumer: keys and values of generated Protobuf types.
        using var consumer = new ConsumerBuilder<OrderKey, OrderPlaced>(consumerConfig)
            .SetProtobufKeyDeserializer()
            .SetProtobufValueDeserializer()
            .Build();

        // Producer with a schema id you already know (no registry client): byte-identical to Confluent's serializer.
        using var producer = new ProducerBuilder<OrderKey, OrderPlaced>(producerConfig)
            .SetProtobufKeySerializer(SchemaIdentifier.FromId(1))
            .SetProtobufValueSerializer(SchemaIdentifier.FromId(2))
            .Build();
        #endregion
    }

    internal static void SeveralTypes(ConsumerConfig consumerConfig, CancellationToken token)
    {
        #region several-types
        using var consumer = new ConsumerBuilder<OrderKey, IMessage>(consumerConfig)
            .SetProtobufKeyDeserializer()
            .SetValueDeserializer(MultiTypeProtobufDeserializer.ForFiles(ShopReflection.Descriptor))
            .Build();

        switch (consumer.Consume(token).Message.Value)
        {
            case OrderPlaced placed:       /* ... */ break;
            case OrderShipped shipped:     /* ... */ break;
            case OrderCancelled cancelled: /* ... */ break;
            case SkippedMessage skipped:   /* a type you did not give, not parsed */ break;
            case null:                     /* tombstone */ break;
        }
        #endregion
    }

    internal static void SeveralFiles(ConsumerConfig consumerConfig)
    {
        #region several-files
        var options = new MultiTypeDeserializerOptions { UnregisteredMessageTypes = UnregisteredMessageTypeHandling.Skip };
        options.WriterSchemas.Files[SchemaIdentifier.FromId(7)] = ShopReflection.Descriptor;   // the id shop.proto was registered under
        using var consumer = new ConsumerBuilder<Ignore, IMessage>(consumerConfig)
            .SetValueDeserializer(new MultiTypeProtobufDeserializer([ShopReflection.Descriptor], options))
            .Build();
        #endregion
    }

    internal static void Migrating(ConsumerBuilder<string, OrderPlaced> builder)
    {
        #region migrating
        // Before: Confluent.SchemaRegistry.Serdes.Protobuf, a copy and a blocking Task per record
        // builder.SetValueDeserializer(new ProtobufDeserializer<OrderPlaced>(registry).AsSyncOverAsync());

        // After: KafkaProtobuf
        builder.SetProtobufValueDeserializer();
        #endregion
    }

    internal static FramedProtobufDeserializer<OrderPlaced> Strict()
    {
        #region verify-writer-type
        var strict = new FramedProtobufDeserializer<OrderPlaced>(new FramedDeserializerOptions { VerifyWriterType = true });
        var lenient = new FramedProtobufDeserializer<OrderPlaced>(OrderPlaced.Parser.WithDiscardUnknownFields(true), null);
        #endregion
        return lenient ?? strict;
    }

    internal static void WithoutExceptions(FramedProtobufDeserializer<OrderPlaced> deserializer, ConsumeResult<byte[], byte[]> record)
    {
        #region without-exceptions
        var context = new SerializationContext(MessageComponentType.Value, record.Topic, record.Message.Headers);
        if (deserializer.TryDeserialize(record.Message.Value, record.Message.Value is null, context, out OrderPlaced? order, out FrameError error))
        {
            // order: the message, or null for a tombstone
        }
        else
        {
            Console.Error.WriteLine($"skipping {record.TopicPartitionOffset}: {error}"); // UnknownMagicByte: ..., at byte 0 of the record data
        }
        #endregion
        GC.KeepAlive(order);
    }

    internal static void ReadTheFraming(byte[] value, string topic, Headers headers)
    {
        #region frame-reader
        if (FrameReader.Default.TryRead(value, new SerializationContext(MessageComponentType.Value, topic, headers), out Frame frame, out FrameError error))
        {
            SchemaIdentifier id = frame.SchemaId;                     // id 42, or guid 535dfcf3-...
            bool first = frame.MessageIndexPath.IsFirstMessageType;   // [0]
            foreach (int index in frame.MessageIndexPath) { /* [1, 2, 0], no allocation */ }
            var order = OrderPlaced.Parser.ParseFrom(frame.Payload);  // a slice of `value`, not a copy
        }
        else
        {
            Console.WriteLine(error); // NegativeMessageIndex: a message index is negative, at byte 6 of the record data (schema id 42)
        }
        #endregion
    }

    internal static void KafkaJs(ConsumerConfig consumerConfig)
    {
        #region kafkajs
        // Records written by @kafkajs/confluent-schema-registry: no message-index path after the schema id.
        using var consumer = new ConsumerBuilder<Ignore, OrderPlaced>(consumerConfig)
            .SetProtobufValueDeserializer(new FramedDeserializerOptions { Framing = { MessageIndexPresence = MessageIndexPresence.Absent } })
            .Build();
        var reader = new FrameReader(new FramingOptions { MessageIndexPresence = MessageIndexPresence.Absent });
        #endregion
        GC.KeepAlive(reader);
    }

    internal static void ReversedPaths(ConsumerConfig consumerConfig, RegistryClient registry)
    {
        #region reversed-paths
        // Every record written by Confluent's .NET serializer 2.10.1 to 2.11.0: nested types' paths innermost first.
        using var consumer = new ConsumerBuilder<Ignore, IMessage>(consumerConfig)
            .SetValueDeserializer(new MultiTypeProtobufDeserializer(
                [ShopReflection.Descriptor],
                new MultiTypeDeserializerOptions { Framing = { MessageIndexOrder = MessageIndexOrder.InnermostFirst } }))
            .Build();

        // Records from before and after the upgrade past 2.11.0 on one topic: the writer's schema decides per record.
        var mixed = new MultiTypeProtobufDeserializer(
            [ShopReflection.Descriptor],
            new MultiTypeDeserializerOptions
            {
                WriterSchemas = { Source = registry },
                Framing = { MessageIndexOrder = MessageIndexOrder.EitherByWriterSchema },
            });
        #endregion
        GC.KeepAlive(mixed);
    }
}
