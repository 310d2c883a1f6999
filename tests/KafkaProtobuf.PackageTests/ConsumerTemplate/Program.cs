// A user's program, built against all six packed packages: a Streamiz serdes (KafkaProtobuf.Streamiz) writes a record
// framed by the registry package (KafkaProtobuf.SchemaRegistry) to the embedded cluster and in-process registry
// (KafkaProtobuf.Testing); a hosted consumer (KafkaProtobuf.Hosting, on KafkaProtobuf) reads it in a generic host; the
// test then reads the printed frame with the packed tool (KafkaProtobuf.Tool).
using Confluent.Kafka;
using Consumer.V1;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Streamiz;
using KafkaProtobuf.Testing;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Hosting;

// .proto text compiled by the Testing package's parser, which must not make Google.Protobuf's FileDescriptorSet ambiguous.
Google.Protobuf.Reflection.FileDescriptorSet compiled = ProtoSource.Compile("greeting.proto", File.ReadAllText("greeting.proto"));
if (compiled.File[^1].MessageType[0].Name != "Greeting")
{
    Console.WriteLine("package consumer: FAILED (ProtoSource)");
    return 1;
}

using var cluster = EmbeddedKafkaCluster.Start(1);
cluster.CreateTopic("greetings", 1);
cluster.CreateTopic("greetings-dead-letters", 1);
using var inProcessRegistry = InProcessSchemaRegistry.Start();
using var registry = new RegistryClient(inProcessRegistry.Url);
var sent = new Greeting { Text = "hello from the packages", Sender = new Greeting.Types.Sender { Name = "ci" } };

// Written by the Streamiz serdes: it registers greeting.proto as "greetings-value" and frames the value.
var serdes = new RegistryProtobufSerDes<Greeting>(registry);
byte[] frame = serdes.Serialize(sent, new SerializationContext(MessageComponentType.Value, "greetings"))!;
if (!sent.Equals(serdes.Deserialize(frame, new SerializationContext(MessageComponentType.Value, "greetings"))))
{
    Console.WriteLine("package consumer: FAILED (Streamiz serdes)");
    return 1;
}

using (IProducer<Null, byte[]> producer = new ProducerBuilder<Null, byte[]>(cluster.CreateProducerConfig()).Build())
{
    producer.Produce("greetings", new Message<Null, byte[]> { Value = frame });
    producer.Flush(TimeSpan.FromSeconds(30));
}

// Read by the hosted consumer, its values through the registry.
var received = new TaskCompletionSource<Greeting>(TaskCreationOptions.RunContinuationsAsynchronously);
HostApplicationBuilder builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
builder.Services.AddSingleton(registry);
builder.Services.AddSingleton(received);
builder.Services
    .AddKafkaProtobufConsumer<Ignore, Greeting>("greetings", options =>
    {
        // Not CreateConsumerConfig: its offset settings are for hand-written loops, and the hosted consumer stores its own.
        options.Consumer = new ConsumerConfig { BootstrapServers = cluster.BootstrapServers, GroupId = "package-consumer", AutoOffsetReset = AutoOffsetReset.Earliest };
        options.Topics.Add("greetings");
        options.DeadLetterTopic = "greetings-dead-letters";
        options.CopyProducer = cluster.CreateProducerConfig();
    })
    .WithProtobufValues(services => services.GetRequiredService<RegistryClient>())
    .HandleWith<GreetingHandler>();
builder.Services.AddHealthChecks().AddKafkaProtobufConsumers();

Greeting? arrived;
HealthStatus health;
using (IHost host = builder.Build())
{
    await host.StartAsync();
    arrived = await received.Task.WaitAsync(TimeSpan.FromSeconds(60));
    health = (await host.Services.GetRequiredService<HealthCheckService>().CheckHealthAsync()).Status;
    await host.StopAsync();
}

bool ok = sent.Equals(arrived) && health == HealthStatus.Healthy;
Console.WriteLine(ok ? $"package consumer: OK {arrived} ({health})" : $"package consumer: FAILED {arrived} ({health})");
Console.WriteLine("frame: " + Convert.ToHexString(frame));
return ok ? 0 : 1;

internal sealed class GreetingHandler(TaskCompletionSource<Greeting> received) : IRecordHandler<Ignore, Greeting>
{
    public Task HandleAsync(ConsumeResult<Ignore, Greeting> record, CancellationToken cancellationToken)
    {
        received.TrySetResult(record.Message.Value);
        return Task.CompletedTask;
    }
}
