using System.Linq;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.AspNetCore;
using KafkaProtobuf.Decoding;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.SchemaRegistry;
using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.DependencyInjection;

namespace KafkaProtobuf.AspNetCore.Tests.Snippets;

/// <summary>The operations page as the docs show it (read by DocSnippetTests in KafkaProtobuf.Tests). Compiled, not run.</summary>
internal static class OperationsPageSnippets
{
    internal static void Map(WebApplicationBuilder builder)
    {
        #region operations-page-map
        builder.Services.AddAuthorization(options =>
        {
            options.AddPolicy("kafka-read", policy => policy.RequireRole("support", "sre"));
            options.AddPolicy("kafka-act", policy => policy.RequireRole("sre"));
        });
        builder.Services.AddAntiforgery();
        // ... the hosted consumers (AddKafkaProtobufConsumer) and the RegistryClient they read with

        var app = builder.Build();
        app.UseAuthentication();
        app.UseAuthorization();
        app.MapKafkaProtobufOperations("/kafka", page =>
        {
            page.ReadPolicy = "kafka-read";       // see consumers and dead letters
            page.ActPolicy = "kafka-act";         // redrive, pause, resume, rewind
            page.Kafka = new ClientConfig { BootstrapServers = "kafka:9092" };
            page.WriterSchemaSource = app.Services.GetRequiredService<RegistryClient>();
        });
        #endregion
    }

    internal static void Loopback(WebApplication app, string bootstrapServers)
    {
        #region operations-page-loopback
        app.MapKafkaProtobufOperations("/kafka", page =>
        {
            page.AllowAnonymousOnLoopback = true; // development: this machine only, 403 elsewhere
            page.Kafka = new ClientConfig { BootstrapServers = bootstrapServers };
            page.WriterSchemaSource = new SingleFileSchemaSource(Shop.V1.ShopReflection.Descriptor); // decode with the application's own types
        });
        #endregion
    }

    internal static async Task Script(WebApplication app)
    {
        #region operations-page-script
        var operations = app.Services.GetRequiredService<KafkaProtobufConsumerOperations>();
        foreach (ConsumerSnapshot consumer in operations.GetConsumers())
        {
            System.Console.WriteLine($"{consumer.Name}: {consumer.State}, lag {consumer.Partitions.Sum(p => p.Lag)}");
        }

        PartitionActionResult paused = await operations.PauseAsync("orders", "orders", partition: 3);
        #endregion
        _ = paused;
    }
}
