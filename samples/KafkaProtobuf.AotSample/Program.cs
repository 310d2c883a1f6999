// Native AOT smoke test: frame a record with the serializer, read it back with the typed and the multi-type
// deserializers and the framing reader, reject a malformed one, then register the schema in the in-process registry
// and read a registered record back by name, and have the registry compile and compare .proto text; print what
// happened. Exit code 0 = all as expected.
using System;
using Confluent.Kafka;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf;
using KafkaProtobuf.Framing;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
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

// .proto text, as other serializers register it: compiled by the in-process registry, compared at BACKWARD.
const string V1 = "syntax = \"proto3\";\npackage aot;\nmessage Reading {\n  string sensor = 1;\n  int32 value = 2;\n}\n";
client.RegisterAsync("readings-value", V1, "PROTOBUF", [], normalize: false).GetAwaiter().GetResult(); // (no await: a Frame, a ref struct, is alive here)
bool textCompatible = client.IsCompatibleAsync("readings-value", V1.Replace("int32 value = 2;", "int32 value = 2;\n  string unit = 3;"), "PROTOBUF", []).GetAwaiter().GetResult();
bool textIncompatible = !client.IsCompatibleAsync("readings-value", V1.Replace("int32 value", "string value"), "PROTOBUF", []).GetAwaiter().GetResult();
RegistrySchema served = client.GetVersionAsync("readings-value", 1).GetAwaiter().GetResult();
bool textServedSerialized = FileDescriptorProto.Parser.ParseFrom(Convert.FromBase64String(served.Schema)).MessageType[0].Name == "Reading";
Console.WriteLine($"text schemas: compatible {textCompatible}, incompatible refused {textIncompatible}, served serialized {textServedSerialized}");

bool ok = textCompatible && textIncompatible && textServedSerialized && order.Equals(typed) && order.Equals(dispatched) && frame.MessageIndexPath.ToString() == "[1]" && rejected && order.Equals(resolved);
Console.WriteLine(ok ? "AOT sample: OK" : "AOT sample: FAILED");
return ok ? 0 : 1;
