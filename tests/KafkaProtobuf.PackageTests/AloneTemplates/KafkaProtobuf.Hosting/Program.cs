// A project whose one reference is the KafkaProtobuf.Hosting package (on the Web SDK, whose shared framework brings the
// generic host, as in most services): a record written with the core package's serializer, which Hosting brings, is read
// by a hosted consumer.
using Confluent.Kafka;
using Google.Protobuf.WellKnownTypes;
using KafkaProtobuf;
using KafkaProtobuf.Hosting;
using Microsoft.Extensions.Hosting;

string bootstrapServers = args[0];
string topic = args[1];
var sent = new StringValue { Value = "read by KafkaProtobuf.Hosting alone" };

using (IProducer<Null, StringValue> producer = new ProducerBuilder<Null, StringValue>(new ProducerConfig { BootstrapServers = bootstrapServers })
    .SetProtobufValueSerializer(SchemaIdentifier.FromId(7))
    .Build())
{
    await producer.ProduceAsync(topic, new Message<Null, StringValue> { Value = sent }).WaitAsync(TimeSpan.FromSeconds(60));
}

var received = new TaskCompletionSource<StringValue>(TaskCreationOptions.RunContinuationsAsynchronously);
HostApplicationBuilder builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
builder.Services
    .AddKafkaProtobufConsumer<Ignore, StringValue>("alone", options =>
    {
        options.Consumer = new ConsumerConfig { BootstrapServers = bootstrapServers, GroupId = "alone", AutoOffsetReset = AutoOffsetReset.Earliest };
        options.Topics.Add(topic);
    })
    .WithProtobufValues()
    .Handle((record, _) =>
    {
        received.TrySetResult(record.Message.Value);
        return Task.CompletedTask;
    });
using IHost host = builder.Build();
await host.StartAsync();
StringValue read = await received.Task.WaitAsync(TimeSpan.FromSeconds(60));
await host.StopAsync(TimeSpan.FromSeconds(30));
Console.WriteLine(sent.Equals(read) ? "alone: OK" : $"alone: FAILED (read {read})");
return sent.Equals(read) ? 0 : 1;
