// A project whose one reference is the KafkaProtobuf.Aspire package (on the Web SDK, as an Aspire service is): the
// connection strings Aspire would set, a registering producer and a hosted consumer by connection name; the record is
// registered, written and read back, and the health checks answer.
using Confluent.Kafka;
using Google.Protobuf.WellKnownTypes;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.SchemaRegistry;
using Microsoft.Extensions.Diagnostics.HealthChecks;

string bootstrapServers = args[0];
string topic = args[1];
var sent = new StringValue { Value = "read by KafkaProtobuf.Aspire alone" };
var received = new TaskCompletionSource<StringValue>(TaskCreationOptions.RunContinuationsAsynchronously);

HostApplicationBuilder builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
builder.Configuration.AddInMemoryCollection(new Dictionary<string, string?>
{
    ["ConnectionStrings:kafka"] = bootstrapServers,
    ["ConnectionStrings:registry"] = args[2],
    ["Aspire:KafkaProtobuf:Consumers:alone:Topics"] = topic,
    ["Aspire:KafkaProtobuf:Consumers:alone:Consumer:auto.offset.reset"] = "earliest",
});
builder.AddKafkaProtobufRegistryClient("registry");
builder.AddKafkaProtobufProducer<Null, StringValue>("kafka");
builder.AddKafkaProtobufConsumer<Ignore, StringValue>("kafka", "alone")
    .WithProtobufValues(services => services.GetRequiredService<RegistryClient>())
    .Handle((record, _) =>
    {
        received.TrySetResult(record.Message.Value);
        return Task.CompletedTask;
    });
using IHost host = builder.Build();
await host.StartAsync();
await host.Services.GetRequiredService<IProducer<Null, StringValue>>().ProduceAsync(topic, new Message<Null, StringValue> { Value = sent }).WaitAsync(TimeSpan.FromSeconds(60));
StringValue read = await received.Task.WaitAsync(TimeSpan.FromSeconds(60));
HealthReport health = await host.Services.GetRequiredService<HealthCheckService>().CheckHealthAsync().WaitAsync(TimeSpan.FromSeconds(60));
await host.StopAsync(TimeSpan.FromSeconds(30));
bool ok = sent.Equals(read) && health.Entries.Count == 3 && health.Entries.Values.All(e => e.Status == HealthStatus.Healthy);
Console.WriteLine(ok ? "alone: OK" : $"alone: FAILED (read {read}; health {string.Join(", ", health.Entries.Select(e => e.Key + " " + e.Value.Status))})");
return ok ? 0 : 1;
