// A project whose one reference is the KafkaProtobuf.Streamiz package: its serdes registers the schema with the
// registry the test started, frames a value and reads the frame back, as a Streamiz topology would.
using Confluent.Kafka;
using Google.Protobuf.WellKnownTypes;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Streamiz;

string topic = args[1];
using var registry = new RegistryClient(args[2]);
var sent = new StringValue { Value = "framed by KafkaProtobuf.Streamiz alone" };
var serdes = new RegistryProtobufSerDes<StringValue>(registry);
var context = new SerializationContext(MessageComponentType.Value, topic);
byte[] frame = serdes.Serialize(sent, context)!;
StringValue? read = serdes.Deserialize(frame, context);
Console.WriteLine(sent.Equals(read) ? "alone: OK" : $"alone: FAILED (read {read})");
return sent.Equals(read) ? 0 : 1;
