// A project whose references are the KafkaProtobuf.Wolverine package and Wolverine's run-time compiler (which a Wolverine
// application needs for its handlers): a message published through the registering serializer is read back by schema
// id into its handler.
using Confluent.Kafka;
using Google.Protobuf.WellKnownTypes;
using KafkaProtobuf;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Wolverine;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Wolverine;
using Wolverine.Kafka;

string bootstrapServers = args[0];
string topic = args[1];
using var registry = new RegistryClient(args[2]);
var sent = new StringValue { Value = "read by KafkaProtobuf.Wolverine alone" };

using IHost host = Host.CreateDefaultBuilder()
    .UseWolverine(opts =>
    {
        opts.Discovery.DisableConventionalDiscovery().IncludeType(typeof(AloneHandler));
        opts.UseKafka(bootstrapServers).ConfigureConsumers(consumer =>
        {
            consumer.GroupId = "alone";
            consumer.AutoOffsetReset = AutoOffsetReset.Earliest;
        });
        opts.ListenToKafkaTopic(topic)
            .ReadProtobuf(new MultiTypeProtobufDeserializer([StringValue.Descriptor], new MultiTypeDeserializerOptions { WriterSchemas = { Source = registry } }));
        opts.PublishMessage<StringValue>().ToKafkaTopic(topic).WriteProtobuf(registry);
    })
    .Build();
await host.StartAsync();
await host.Services.GetRequiredService<IMessageBus>().PublishAsync(sent);
StringValue read = await AloneHandler.Received.Task.WaitAsync(TimeSpan.FromSeconds(60));
await host.StopAsync(TimeSpan.FromSeconds(30));
Console.WriteLine(sent.Equals(read) ? "alone: OK" : $"alone: FAILED (read {read})");
return sent.Equals(read) ? 0 : 1;

public static class AloneHandler
{
    public static TaskCompletionSource<StringValue> Received { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

    public static void Handle(StringValue value) => Received.TrySetResult(value);
}
