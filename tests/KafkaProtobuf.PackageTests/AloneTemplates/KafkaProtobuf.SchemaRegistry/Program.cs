// A project whose one reference is the KafkaProtobuf.SchemaRegistry package: the registry serializer registers its
// schema with the registry the test started and writes a record; the registry deserializer reads it by name.
using Confluent.Kafka;
using Google.Protobuf.WellKnownTypes;
using KafkaProtobuf.SchemaRegistry;

string bootstrapServers = args[0];
string topic = args[1];
using var registry = new RegistryClient(args[2]);
var sent = new StringValue { Value = "written by KafkaProtobuf.SchemaRegistry alone" };

using (IProducer<Null, StringValue> producer = new ProducerBuilder<Null, StringValue>(new ProducerConfig { BootstrapServers = bootstrapServers })
    .SetProtobufValueSerializer(registry)
    .Build())
{
    await producer.ProduceAsync(topic, new Message<Null, StringValue> { Value = sent }).WaitAsync(TimeSpan.FromSeconds(60));
}

using IConsumer<Ignore, StringValue> consumer = new ConsumerBuilder<Ignore, StringValue>(
        new ConsumerConfig { BootstrapServers = bootstrapServers, GroupId = "alone", AutoOffsetReset = AutoOffsetReset.Earliest })
    .SetProtobufValueDeserializer(registry)
    .Build();
consumer.Subscribe(topic);
ConsumeResult<Ignore, StringValue>? read = consumer.Consume(TimeSpan.FromSeconds(60));
consumer.Close();
Console.WriteLine(sent.Equals(read?.Message.Value) ? "alone: OK" : $"alone: FAILED (read {read?.Message.Value})");
return sent.Equals(read?.Message.Value) ? 0 : 1;
