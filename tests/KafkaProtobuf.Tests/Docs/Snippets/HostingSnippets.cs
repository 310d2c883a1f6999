using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.Diagnostics;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.SchemaRegistry;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using OpenTelemetry;
using OpenTelemetry.Trace;
using Shop.V1;

namespace KafkaProtobuf.Tests.Docs.Snippets;

/// <summary>The hosted consumer as the docs show it. Compiled, not run.</summary>
internal static class HostingSnippets
{
    internal static void Hosted(string[] args)
    {
        #region hosted-consumer
        var builder = Host.CreateApplicationBuilder(args);
        builder.Services
            .AddKafkaProtobufConsumer<string, OrderPlaced>("orders", builder.Configuration.GetSection("Kafka:Orders"))
            .WithProtobufValues()
            .HandleWith<OrderPlacedHandler>();        // resolved in a new scope per record
        builder.Services.AddHealthChecks().AddKafkaProtobufConsumers();
        builder.Build().Run();
        #endregion
    }

    #region hosted-handler
    public sealed class OrderPlacedHandler(IOrderStore store) : IRecordHandler<string, OrderPlaced>
    {
        // Its offset is stored once this returns; an exception is retried, then dead-lettered (HandlerFailures).
        public Task HandleAsync(ConsumeResult<string, OrderPlaced> record, CancellationToken cancellationToken) =>
            store.SaveAsync(record.Message.Value, cancellationToken);
    }
    #endregion

    public interface IOrderStore
    {
        Task SaveAsync(OrderPlaced order, CancellationToken cancellationToken);

        Task InsertManyAsync(IEnumerable<OrderPlaced> orders, CancellationToken cancellationToken);
    }

    internal static void InCode(IServiceCollection services)
    {
        #region hosted-consumer-code
        services
            .AddKafkaProtobufConsumer<string, IMessage>("shop", options =>
            {
                options.Consumer = new ConsumerConfig { BootstrapServers = "localhost:9092", GroupId = "shop-service" };
                options.Topics.Add("shop.orders");
                options.DeadLetterTopic = "shop.orders.dlq";
                options.HandlerFailures.MaxAttempts = 5;  // then dead-lettered with the exception in headers
                options.HandlerFailures.Classify = e => e is ArgumentException ? HandlerFailureAction.DeadLetter : null;
            })
            .WithProtobufValues(services => services.GetRequiredService<RegistryClient>(), ShopReflection.Descriptor)
            .Handle((record, cancellationToken) => record.Message.Value switch
            {
                OrderPlaced placed => Task.CompletedTask,       // ...
                OrderShipped shipped => Task.CompletedTask,     // ...
                _ => Task.CompletedTask,                        // SkippedMessage, tombstones
            });
        #endregion
    }

    internal static void RegistryFromConfiguration(string[] args)
    {
        var builder = Host.CreateApplicationBuilder(args);
        #region hosted-registry-configuration
        builder.Services.AddSingleton(services =>
        {
            RegistryClientOptions options = RegistryClientOptions.FromSettings(
                builder.Configuration.GetSection("SchemaRegistry").AsEnumerable(makePathsRelative: true));
            options.Logger = services.GetRequiredService<ILogger<RegistryClient>>(); // e.g. its warning if verification is off
            return new RegistryClient(options);
        });
        builder.Services
            .AddKafkaProtobufConsumer<string, IMessage>("shop", builder.Configuration.GetSection("Kafka:Shop"))
            .WithProtobufValues(services => services.GetRequiredService<RegistryClient>(), ShopReflection.Descriptor)
            .HandleWith<ShopHandler>();
        #endregion
    }

    public sealed class ShopHandler : IRecordHandler<string, IMessage>
    {
        public Task HandleAsync(ConsumeResult<string, IMessage> record, CancellationToken cancellationToken) => Task.CompletedTask;
    }

    internal static void Tracing(List<Activity> spans)
    {
        #region hosted-tracing
        using TracerProvider tracing = Sdk.CreateTracerProviderBuilder()
            .AddSource(KafkaProtobufConsumerTracing.ActivitySourceName)
            .AddInMemoryExporter(spans) // or your exporter (OTLP, console...)
            .Build();
        #endregion
    }

    internal static void TraceProducer(IProducer<byte[], byte[]> producer, byte[] key, byte[] value)
    {
        #region trace-producer
        var message = new Message<byte[], byte[]> { Key = key, Value = value, Headers = [] };
        KafkaTraceContext.Inject(message.Headers); // Activity.Current's traceparent, tracestate and baggage
        producer.Produce("shop.orders", message);
        #endregion
    }

    internal static void Parallel(IServiceCollection services)
    {
        #region hosted-parallel
        services
            .AddKafkaProtobufConsumer<string, OrderPlaced>("orders", options =>
            {
                options.Consumer = new ConsumerConfig { BootstrapServers = "localhost:9092", GroupId = "order-service" };
                options.Topics.Add("shop.orders");
                options.DeadLetterTopic = "shop.orders.dlq";
                options.MaxConcurrentHandlers = 6;              // e.g. one per partition this member owns
                options.HandlingOrder = HandlingOrder.Key;     // optional: one partition's keys overlap too
                options.MaxReadAheadBytes = 64L << 20;         // then fetching pauses
            })
            .WithProtobufValues()
            .HandleWith<OrderPlacedHandler>();
        #endregion
    }

    internal static void Batches(IServiceCollection services, IOrderStore orders)
    {
        #region hosted-batches
        services
            .AddKafkaProtobufConsumer<string, OrderPlaced>("orders", options =>
            {
                options.Consumer = new ConsumerConfig { BootstrapServers = "localhost:9092", GroupId = "order-service" };
                options.Topics.Add("shop.orders");
                options.DeadLetterTopic = "shop.orders.dlq";
                options.Batches.MaxSize = 100;                          // records per batch at most
                options.Batches.MaxWait = TimeSpan.FromMilliseconds(500); // a partial batch is handed over then
                options.MaxConcurrentHandlers = 3;                       // batches of different partitions at once
            })
            .WithProtobufValues()
            .HandleBatch(async (IReadOnlyList<ConsumeResult<string, OrderPlaced>> batch, CancellationToken token) =>
            {
                await orders.InsertManyAsync(batch.Select(r => r.Message.Value), token); // all or nothing
            });
        #endregion
    }

    internal static void RetryTopics(IServiceCollection services)
    {
        #region hosted-retry-topics
        services
            .AddKafkaProtobufConsumer<string, OrderPlaced>("orders", options =>
            {
                options.Consumer = new ConsumerConfig { BootstrapServers = "localhost:9092", GroupId = "order-service" };
                options.Topics.Add("shop.orders");
                options.DeadLetterTopic = "shop.orders.dlq";
                options.HandlerFailures.MaxAttempts = 3;                      // in place first, then:
                options.RetryTopics.Delays.Add(TimeSpan.FromSeconds(10));    // shop.orders.retry.1
                options.RetryTopics.Delays.Add(TimeSpan.FromMinutes(1));     // shop.orders.retry.2, then the dead-letter topic
            })
            .WithProtobufValues()
            .HandleWith<OrderPlacedHandler>();
        #endregion
    }
}
