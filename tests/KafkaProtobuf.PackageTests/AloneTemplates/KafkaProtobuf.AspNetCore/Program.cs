// A project whose one reference is the KafkaProtobuf.AspNetCore package (on the Web SDK, as a service is): a hosted
// consumer dead-letters a record that is not a frame, and the operations page, mapped for this machine only, lists the
// consumer and shows the dead letter in its failure group.
using System.Net.Http.Json;
using System.Text.Json.Nodes;
using Confluent.Kafka;
using Google.Protobuf.WellKnownTypes;
using KafkaProtobuf.Hosting;

string bootstrapServers = args[0];
string topic = args[1];
string deadLetters = topic + ".dlq"; // created by the test, as the embedded cluster has no controller for an admin client

WebApplicationBuilder builder = WebApplication.CreateBuilder();
builder.WebHost.UseUrls("http://127.0.0.1:0");
builder.Logging.ClearProviders();
builder.Services.AddAntiforgery();
builder.Services.AddKafkaProtobufConsumer<Ignore, StringValue>("alone", options =>
    {
        options.Consumer = new ConsumerConfig { BootstrapServers = bootstrapServers, GroupId = "alone", AutoOffsetReset = AutoOffsetReset.Earliest };
        options.Topics.Add(topic);
        options.DeadLetterTopic = deadLetters;
        options.CopyProducer = new ProducerConfig { BootstrapServers = bootstrapServers };
    })
    .WithProtobufValues()
    .Handle((_, _) => Task.CompletedTask);
WebApplication app = builder.Build();
app.MapKafkaProtobufOperations("/kafka", options =>
{
    options.AllowAnonymousOnLoopback = true;
    options.Kafka = new ClientConfig { BootstrapServers = bootstrapServers };
});
await app.StartAsync();

using (IProducer<Null, byte[]> producer = new ProducerBuilder<Null, byte[]>(new ProducerConfig { BootstrapServers = bootstrapServers }).Build())
{
    await producer.ProduceAsync(topic, new Message<Null, byte[]> { Value = "not a frame"u8.ToArray() }).WaitAsync(TimeSpan.FromSeconds(60));
}

using var http = new HttpClient { BaseAddress = new Uri(app.Urls.Single() + "/kafka/"), Timeout = TimeSpan.FromSeconds(30) };
string html = await http.GetStringAsync(string.Empty);
JsonNode consumers = (await http.GetFromJsonAsync<JsonNode>("api/consumers"))!;
string? code = null;
DateTime giveUp = DateTime.UtcNow.AddSeconds(60);
while (code is null && DateTime.UtcNow < giveUp)
{
    JsonNode page = (await http.GetFromJsonAsync<JsonNode>("api/dead-letters/" + deadLetters))!;
    code = (string?)page["groups"]!.AsArray().FirstOrDefault()?["code"];
    await Task.Delay(200);
}

await app.StopAsync();
bool ok = html.Contains("app.js", StringComparison.Ordinal)
    && (string?)consumers["consumers"]![0]!["name"] == "alone"
    && code == "UnknownMagicByte";
Console.WriteLine(ok ? "alone: OK" : $"alone: FAILED (dead letter code {code ?? "none"}; consumers {consumers.ToJsonString()})");
return ok ? 0 : 1;
