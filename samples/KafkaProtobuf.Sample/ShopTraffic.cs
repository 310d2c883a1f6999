using System.Collections.Generic;
using System.Text;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf;
using KafkaProtobuf.SchemaRegistry;
using Shop.V1;

namespace KafkaProtobuf.Sample;

/// <summary>
/// The records the sample produces: orders placed, shipped and cancelled, deletions (tombstones) of cancelled orders,
/// and a few poison records somebody else wrote. Every record is framed by the registering serializer, which registers
/// shop.proto (one schema: one id, one GUID) on its first record, with the schema id in the prefix or (for one in
/// three cancellations) the schema GUID in the header.
/// </summary>
internal sealed class ShopTraffic
{
    private static readonly RegistrySerializerOptions HeaderPlacement = new() { SchemaIdPlacement = SchemaIdPlacement.Header };

    private readonly RegistryProtobufSerializer<OrderKey> _keys;
    private readonly RegistryProtobufSerializer<OrderPlaced> _placed;
    private readonly RegistryProtobufSerializer<OrderShipped> _shipped;
    private readonly RegistryProtobufSerializer<OrderCancelled> _cancelled;
    private readonly RegistryProtobufSerializer<OrderCancelled> _cancelledWithHeaderId;
    private readonly byte[] _valueSchemaId;

    private ShopTraffic(RegistryClient registry, SchemaIdentifier valueSchema)
    {
        _keys = new(registry, null);
        _placed = new(registry, null);
        _shipped = new(registry, null);
        _cancelled = new(registry, null);
        _cancelledWithHeaderId = new(registry, HeaderPlacement);
        _valueSchemaId = [(byte)(valueSchema.Id!.Value >> 24), (byte)(valueSchema.Id.Value >> 16), (byte)(valueSchema.Id.Value >> 8), (byte)valueSchema.Id.Value];
    }

    /// <summary>Registers shop.proto for the topic's keys and values, and returns the producer of the stream.</summary>
    internal static async System.Threading.Tasks.Task<ShopTraffic> RegisterAsync(RegistryClient registry, string topic)
    {
        SchemaIdentifier valueSchema = await new RegistryProtobufSerializer<OrderPlaced>(registry, null).WarmUpAsync(topic, MessageComponentType.Value);
        return new ShopTraffic(registry, valueSchema);
    }

    private static readonly string[] Customers = ["ada", "grace", "linus", "barbara", "ken", "margaret"];
    private static readonly string[] Cities = ["Lisbon", "Oslo", "Nairobi", "Lima", "Osaka"];

    /// <summary>Every record to produce, in order.</summary>
    internal IEnumerable<Message<byte[], byte[]>> Records(string topic, int orders)
    {
        for (int i = 1; i <= orders; i++)
        {
            string id = $"o-{i:D5}";
            yield return Record(topic, id, _placed, new OrderPlaced
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
                yield return i % 60 == 0 ? Record(topic, id, _cancelledWithHeaderId, cancellation) : Record(topic, id, _cancelled, cancellation);
                yield return new Message<byte[], byte[]> { Key = KeyBytes(topic, id), Value = null! }; // tombstone: delete the order
            }
            else
            {
                yield return Record(topic, id, _shipped, new OrderShipped
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
    private IEnumerable<Message<byte[], byte[]>> Poison(string topic, string id)
    {
        byte[] key = KeyBytes(topic, id);
        yield return new() { Key = key, Value = Encoding.UTF8.GetBytes("{\"order_id\":\"" + id + "\",\"status\":\"shipped\"}") }; // JSON
        yield return new() { Key = key, Value = [0x00, .. _valueSchemaId, 0x82] }; // cut off inside the path
        yield return new() { Key = key, Value = [0x00, .. _valueSchemaId, 0x02, 0x12, 0x0a, 0x01, 0x41] }; // path [9]: no such type
    }

    private byte[] KeyBytes(string topic, string id) =>
        _keys.Serialize(new OrderKey { OrderId = id }, new SerializationContext(MessageComponentType.Key, topic))!;

    private Message<byte[], byte[]> Record<T>(string topic, string id, RegistryProtobufSerializer<T> serializer, T value)
        where T : class, IMessage<T>, new()
    {
        var headers = new Headers { { "source", "sample"u8.ToArray() } };
        byte[] data = serializer.Serialize(value, new SerializationContext(MessageComponentType.Value, topic, headers))!;
        return new Message<byte[], byte[]> { Key = KeyBytes(topic, id), Value = data, Headers = headers };
    }
}
