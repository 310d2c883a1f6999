using System;
using System.Buffers.Binary;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
using Xunit;
using Reader = KafkaProtobuf.Tests.Shop.Reader;
using Writer = KafkaProtobuf.Tests.Shop.Writer;

namespace KafkaProtobuf.Tests.Registry;

/// <summary>
/// <see cref="MessageIndexPresence.Absent"/> with the registry-resolving deserializer: a KafkaJS record is path <c>[0]</c> of
/// its writer's file, fetched from the registry and matched to the reader's types by name.
/// </summary>
public sealed class MessageIndexPresenceAbsentRegistryTests
{
    [Fact]
    public async Task AKafkaJsRecord_IsTheWritersFirstMessage_ResolvedByName_InAReaderProtoThatDeclaresItLast()
    {
        using var registry = InProcessSchemaRegistry.Start();
        using var client = new RegistryClient(registry.Url);

        // The writer's orders.proto declares OrderPlaced first; a KafkaJS producer registered it and writes no indexes.
        var placed = new Writer.OrderPlaced { OrderId = "o-1", Total = new Writer.Money { Currency = "EUR", Units = 12 } };
        SchemaIdentifier id = await new RegistryProtobufSerializer<Writer.OrderPlaced>(client, null).WarmUpAsync("orders", MessageComponentType.Value);
        byte[] record = new byte[5];
        BinaryPrimitives.WriteInt32BigEndian(record.AsSpan(1), id.Id!.Value);
        record = [.. record, .. placed.ToByteArray()];

        var deserializer = new MultiTypeProtobufDeserializer(
            [Reader.OrdersReflection.Descriptor],
            new MultiTypeDeserializerOptions { WriterSchemas = { Source = client }, Framing = { MessageIndexPresence = MessageIndexPresence.Absent } });
        IMessage? message = deserializer.Deserialize(record, false, new SerializationContext(MessageComponentType.Value, "orders", []));

        // The reader declares OrderPlaced third: [0] in its own file would be OrderCancelled.
        Assert.Equal("OrderCancelled", Reader.OrdersReflection.Descriptor.MessageTypes[0].Name);
        var read = Assert.IsType<Reader.OrderPlaced>(message);
        Assert.Equal("o-1", read.OrderId);
        Assert.Equal(12, read.Total.Units);
    }
}
