using System.Threading.Tasks;
using Aspire.Hosting;
using Confluent.Kafka;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.SchemaRegistry;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Orders.V1;

namespace KafkaProtobuf.Aspire.Tests.Snippets;

/// <summary>The Aspire integrations as the docs show them (read by DocSnippetTests in KafkaProtobuf.Tests). Compiled, not run.</summary>
internal static class AspireSnippets
{
    internal static void AppHost(string[] args, string ordersProto)
    {
        #region aspire-apphost
        var builder = DistributedApplication.CreateBuilder(args);
        var kafka = builder.AddEmbeddedKafka("kafka")                 // in this process: no Docker, no JVM
            .WithTopic("orders", partitions: 3)
            .WithTopic("orders.dlq");
        var registry = builder.AddInProcessSchemaRegistry("registry")
            .WithSubject("orders-value", ordersProto);               // .proto text, registered at start
        builder.AddProject("orders", "../Orders/Orders.csproj")
            .WithReference(kafka).WaitFor(kafka)
            .WithReference(registry).WaitFor(registry)
            .WithHttpHealthCheck("/health");                         // the service maps it: its consumers' health reaches the dashboard
        builder.Build().Run();
        #endregion
    }

    internal static void Service(IHostApplicationBuilder builder)
    {
        #region aspire-service
        builder.AddKafkaProtobufRegistryClient("registry");                    // ConnectionStrings:registry
        builder.AddKafkaProtobufProducer<string, OrderPlaced>("kafka");        // registers OrderPlaced on first use
        builder.AddKafkaProtobufConsumer<string, OrderPlaced>("kafka", "orders", configureSettings: null, configureOptions: options =>
                options.Consumer.AutoOffsetReset = AutoOffsetReset.Earliest) // a new group reads from the start, not only what comes next
            .WithProtobufValues(services => services.GetRequiredService<RegistryClient>())
            .Handle((record, cancellationToken) => Task.CompletedTask);
        #endregion
    }
}
