// The test AppHost's service: KafkaProtobuf.Aspire's three registrations by connection name, and a small HTTP API the
// tests observe it through (what it handled; a record to write).
using System.Collections.Concurrent;
using System.Threading.Tasks;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Confluent.Kafka;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.SchemaRegistry;
using Orders.V1;

WebApplicationBuilder builder = WebApplication.CreateBuilder(args);
var handled = new ConcurrentQueue<string>();

builder.AddKafkaProtobufRegistryClient("registry");
builder.AddKafkaProtobufProducer<string, OrderPlaced>("kafka");
builder.AddKafkaProtobufConsumer<string, OrderPlaced>("kafka", "orders") // Topics, DeadLetterTopic: appsettings.json
    .WithProtobufValues(services => services.GetRequiredService<RegistryClient>())
    .Handle((record, _) =>
    {
        handled.Enqueue(record.Message.Value.OrderId);
        return Task.CompletedTask;
    });

WebApplication app = builder.Build();
app.MapHealthChecks("/health");
app.MapGet("/handled", () => handled.ToArray());
app.MapPost("/orders/{id}", async (string id, IProducer<string, OrderPlaced> producer) =>
{
    DeliveryResult<string, OrderPlaced> delivered = await producer.ProduceAsync("orders", new Message<string, OrderPlaced>
    {
        Key = id,
        Value = new OrderPlaced { OrderId = id, Cents = 1999 },
    });
    return delivered.Offset.Value;
});
app.Run();
