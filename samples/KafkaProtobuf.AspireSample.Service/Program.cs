// The Aspire sample's service. Its Kafka and registry come from the AppHost by connection name ("kafka", "registry");
// the consumer's topics and dead-letter topic from appsettings.json (Aspire:KafkaProtobuf:Consumers:shop).
using System;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.SchemaRegistry;
using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Shop.V1;

WebApplicationBuilder builder = WebApplication.CreateBuilder(args);
builder.AddKafkaProtobufRegistryClient("registry");
builder.AddKafkaProtobufProducer<string, OrderPlaced>("kafka");
builder.AddKafkaProtobufConsumer<string, OrderPlaced>("kafka", "shop")
    .WithProtobufValues(services => services.GetRequiredService<RegistryClient>())
    .Handle((services, record, _) =>
    {
        ShopLog.OrderRead(services.GetRequiredService<ILoggerFactory>().CreateLogger("Shop"), record);
        return Task.CompletedTask;
    });
builder.Services.AddHostedService<OrderTraffic>();

WebApplication app = builder.Build();
app.MapHealthChecks("/health");
app.Run();

/// <summary>Places an order a second, written through the registering producer.</summary>
internal sealed class OrderTraffic(IProducer<string, OrderPlaced> producer) : BackgroundService
{
    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        for (int n = 1; !stoppingToken.IsCancellationRequested; n++)
        {
            string id = "order-" + n;
            await producer.ProduceAsync("shop.orders", new Message<string, OrderPlaced>
            {
                Key = id,
                Value = new OrderPlaced { OrderId = id, Customer = "customer-" + (n % 7), PlacedAtUnixMs = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds() },
            }, stoppingToken);
            await Task.Delay(TimeSpan.FromSeconds(1), stoppingToken);
        }
    }
}

/// <summary>What the sample's handler logs.</summary>
internal static partial class ShopLog
{
    public static void OrderRead(ILogger logger, ConsumeResult<string, OrderPlaced> record)
    {
        if (logger.IsEnabled(LogLevel.Information))
        {
            OrderRead(logger, record.Message.Value.OrderId, record.Message.Value.Customer, record.Partition.Value, record.Offset.Value);
        }
    }

    [LoggerMessage(EventId = 1, Level = LogLevel.Information, Message = "Order {OrderId} for {Customer}, partition {Partition} offset {Offset}")]
    private static partial void OrderRead(ILogger logger, string orderId, string customer, int partition, long offset);
}
