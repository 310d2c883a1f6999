using System;
using System.Collections.Generic;
using System.Text;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf;
using Shop.V1;

namespace KafkaProtobuf.Sample;

/// <summary>
/// The records the sample produces: orders placed, shipped and cancelled, deletions (tombstones) of cancelled orders,
/// and a few poison records somebody else wrote. Every record is framed by this package's serializer, with the schema
/// id in the prefix or (for one in three cancellations) the schema GUID in the header.
/// </summary>
internal static class ShopTraffic
{
    /// <summary>The whole shop.proto is one registered schema: one id for the prefix, one GUID for headers.</summary>
    internal static readonly SchemaIdentifier KeySchema = SchemaIdentifier.FromId(1);
    internal static readonly SchemaIdentifier ValueSchema = SchemaIdentifier.FromId(7);
    internal static readonly SchemaIdentifier ValueSchemaGuid = SchemaIdentifier.FromGuid(Guid.Parse("535dfcf3-ca23-439a-a2aa-7cf32e6ddf10"));

    private static readonly FramedProtobufSerializer<OrderKey> Keys = new(KeySchema);
    private static readonly FramedProtobufSerializer<OrderPlaced> Placed = new(ValueSchema);
    private static readonly FramedProtobufSerializer<OrderShipped> Shipped = new(ValueSchema);
    private static readonly FramedProtobufSerializer<OrderCancelled> Cancelled = new(ValueSchema);
    private static readonly FramedProtobufSerializer<OrderCancelled> CancelledWithHeaderId =
        new(ValueSchemaGuid, new FramedSerializerOptions { SchemaIdPlacement = SchemaIdPlacement.Header });

    private static readonly string[] Customers = ["ada", "grace", "linus", "barbara", "ken", "margaret"];
    private static readonly string[] Cities = ["Lisbon", "Oslo", "Nairobi", "Lima", "Osaka"];

    /// <summary>Every record to produce, in order.</summary>
    internal static IEnumerable<Message<byte[], byte[]>> Records(string topic, int orders)
    {
        for (int i = 1; i <= orders; i++)
        {
            string id = $"o-{i:D5}";
            yield return Record(topic, id, Placed, new OrderPlaced
            {
                OrderId = id,
                Customer = Customers[i % Customers.Length],
                PlacedAtUnixMs = 1_700_000_000_000 + (i * 1000L),
                Lines =
                {
                    new OrderPlaced.Types.Line { Sku = $"sku-{i % 40}", Quantity = 1 + (i % 3), UnitPriceCents = 250 + (i % 17 * 100) },
                    new OrderPlaced.Types.Line { Sku = "sku-gift-wrap", Quantity = 1, UnitPriceCents = 199 },
                },
            });

            if (i % 20 == 0)
            {
                var cancellation = new OrderCancelled { OrderId = id, Reason = "customer request" };
                yield return i % 60 == 0 ? Record(topic, id, CancelledWithHeaderId, cancellation) : Record(topic, id, Cancelled, cancellation);
                yield return new Message<byte[], byte[]> { Key = KeyBytes(topic, id), Value = null! }; // tombstone: delete the order
            }
            else
            {
                yield return Record(topic, id, Shipped, new OrderShipped
                {
                    OrderId = id,
                    Carrier = i % 2 == 0 ? "DHL" : "UPS",
                    Address = new OrderShipped.Types.Address { Street = $"{i} Harbour Road", City = Cities[i % Cities.Length], Country = "XX" },
                });
            }

            if (i % 1000 == 500)
            {
                foreach (Message<byte[], byte[]> poison in Poison(topic, id))
                {
                    yield return poison;
                }
            }
        }
    }

    /// <summary>Records another team's producer got wrong.</summary>
    private static IEnumerable<Message<byte[], byte[]>> Poison(string topic, string id)
    {
        byte[] key = KeyBytes(topic, id);
        yield return new() { Key = key, Value = Encoding.UTF8.GetBytes("{\"order_id\":\"" + id + "\",\"status\":\"shipped\"}") }; // JSON
        yield return new() { Key = key, Value = [0x00, 0x00, 0x00, 0x00, 0x07, 0x82] }; // cut off inside the path
        yield return new() { Key = key, Value = [0x00, 0x00, 0x00, 0x00, 0x07, 0x02, 0x12, 0x0a, 0x01, 0x41] }; // path [9]: no such type
    }

    private static byte[] KeyBytes(string topic, string id) =>
        Keys.Serialize(new OrderKey { OrderId = id }, new SerializationContext(MessageComponentType.Key, topic))!;

    private static Message<byte[], byte[]> Record<T>(string topic, string id, FramedProtobufSerializer<T> serializer, T value)
        where T : class, IMessage<T>, new()
    {
        var headers = new Headers { { "source", "sample"u8.ToArray() } };
        byte[] data = serializer.Serialize(value, new SerializationContext(MessageComponentType.Value, topic, headers))!;
        return new Message<byte[], byte[]> { Key = KeyBytes(topic, id), Value = data, Headers = headers };
    }
}
