// A project whose one reference is the KafkaProtobuf package, so NuGet resolves its declared floors: the serializer
// writes a record to the cluster the test started, and the deserializer reads it back.
using Confluent.Kafka;
using Google.Protobuf.WellKnownTypes;
using KafkaProtobuf;

string bootstrapServers = args[0];
string topic = args[1];
var sent = new StringValue { Value = "written by KafkaProtobuf alone" };

using (IProducer<Null, StringValue> producer = new ProducerBuilder<Null, StringValue>(new ProducerConfig { BootstrapServers = bootstrapServers })
    .SetProtobufValueSerializer(SchemaIdentifier.FromId(7))
    .Build())
{
    await producer.ProduceAsync(topic, new Message<Null, StringValue> { Value = sent }).WaitAsync(TimeSpan.FromSeconds(60));
}

using IConsumer<Ignore, StringValue> consumer = new ConsumerBuilder<Ignore, StringValue>(
        new ConsumerConfig { BootstrapServers = bootstrapServers, GroupId = "alone", AutoOffsetReset = AutoOffsetReset.Earliest })
    .SetProtobufValueDeserializer()
    .Build();
consumer.Subscribe(topic);
ConsumeResult<Ignore, StringValue>? read = consumer.Consume(TimeSpan.FromSeconds(60));
consumer.Close();
Console.WriteLine(sent.Equals(read?.Message.Value) ? "alone: OK" : $"alone: FAILED (read {read?.Message.Value})");
return sent.Equals(read?.Message.Value) ? 0 : 1;
