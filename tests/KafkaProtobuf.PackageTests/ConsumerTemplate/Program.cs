// A user's program, built against the packed KafkaProtobuf and KafkaProtobuf.Testing packages: produce one framed record
// to the embedded cluster, consume it with the package's deserializer, print what arrived.
using Confluent.Kafka;
using Consumer.V1;
using KafkaProtobuf;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Testing.SchemaRegistry;

// .proto text compiled by the Testing package's parser, which must not make Google.Protobuf's FileDescriptorSet ambiguous.
Google.Protobuf.Reflection.FileDescriptorSet compiled = ProtoSource.Compile("greeting.proto", File.ReadAllText("greeting.proto"));
if (compiled.File[^1].MessageType[0].Name != "Greeting")
{
    Console.WriteLine("package consumer: FAILED (ProtoSource)");
    return 1;
}

using var cluster = EmbeddedKafkaCluster.Start(1);
cluster.CreateTopic("greetings", 1);
var sent = new Greeting { Text = "hello from the package", Sender = new Greeting.Types.Sender { Name = "ci" } };

using (var producer = new ProducerBuilder<Null, Greeting>(cluster.CreateProducerConfig())
    .SetProtobufValueSerializer(SchemaIdentifier.FromId(3))
    .Build())
{
    producer.Produce("greetings", new Message<Null, Greeting> { Value = sent });
    producer.Flush(TimeSpan.FromSeconds(30));
}

using var consumer = new ConsumerBuilder<Ignore, Greeting>(cluster.CreateConsumerConfig()).SetProtobufValueDeserializer().Build();
consumer.Assign(new TopicPartitionOffset("greetings", 0, Offset.Beginning));
ConsumeResult<Ignore, Greeting>? result = consumer.Consume(TimeSpan.FromSeconds(30));
Console.WriteLine(result?.Message.Value.Equals(sent) == true ? "package consumer: OK " + result.Message.Value : "package consumer: FAILED");
return result?.Message.Value.Equals(sent) == true ? 0 : 1;
