// Native AOT smoke test: frame a record with the serializer, read it back with the typed and the multi-type
// deserializers and the framing reader, reject a malformed one, then register the schema in the in-process registry
// and read a registered record back by name; print what happened. Exit code 0 = all as expected.
using System;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf;
using KafkaProtobuf.Framing;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing.SchemaRegistry;
using Shop.V1;

var headers = new Headers();
var context = new SerializationContext(MessageComponentType.Value, "shop.orders", headers);
var order = new OrderPlaced
{
    OrderId = "o-00042",
    Customer = "ada",
    Lines = { new OrderPlaced.Types.Line { Sku = "sku-7", Quantity = 2, UnitPriceCents = 1250 } },
};

byte[] record = new FramedProtobufSerializer<OrderPlaced>(SchemaIdentifier.FromId(7)).Serialize(order, context)!;
Frame frame = FrameReader.Default.Read(record, context);
OrderPlaced? typed = new FramedProtobufDeserializer<OrderPlaced>().Deserialize(record, false, context);
IMessage? dispatched = MultiTypeProtobufDeserializer.ForFiles(ShopReflection.Descriptor).Deserialize(record, false, context);

Console.WriteLine($"record: {Convert.ToHexString(record)}");
Console.WriteLine($"schema {frame.SchemaId}, message-index path {frame.MessageIndexPath.ToString()}, payload {frame.Payload.Length} bytes");
Console.WriteLine($"typed: {typed}");
Console.WriteLine($"dispatched: {dispatched?.Descriptor.FullName} {dispatched}");

bool rejected = false;
try
{
    new FramedProtobufDeserializer<OrderPlaced>().Deserialize("{\"order_id\":1}"u8, false, context);
}
catch (InvalidFrameException e)
{
    rejected = e.ErrorCode == FrameErrorCode.UnknownMagicByte;
    Console.WriteLine($"rejected: {e.ErrorCode} at byte {e.Offset}");
}

// The registry path: JSON by source generation, HTTP on loopback, the writer's file built from the registry's answer.
using var registry = InProcessSchemaRegistry.Start();
using var client = new RegistryClient(registry.Url);
byte[] registered = new RegistryProtobufSerializer<OrderPlaced>(client, null).Serialize(order, context)!;
using var reader = new RegistryClient(registry.Url); // a cold cache: the writer's file comes over HTTP
var byName = new MultiTypeProtobufDeserializer([ShopReflection.Descriptor], new MultiTypeDeserializerOptions { WriterSchemas = { Source = reader } });
IMessage? resolved = byName.Deserialize(registered, false, context);
Console.WriteLine($"registered: schema id {registered[4]}, resolved by name: {resolved?.Descriptor.FullName}");

bool ok = order.Equals(typed) && order.Equals(dispatched) && frame.MessageIndexPath.ToString() == "[1]" && rejected && order.Equals(resolved);
Console.WriteLine(ok ? "AOT sample: OK" : "AOT sample: FAILED");
return ok ? 0 : 1;
