using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tests.Support;
using KafkaProtobuf.Tests.Tool;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Hosting;
using Shop.V1;
using Xunit;
using static KafkaProtobuf.Tests.EndToEnd.DeviceRecords;

namespace KafkaProtobuf.Tests.Hosting;

/// <summary>
/// The hosted consumer reading by name from a Schema Registry over HTTP that is down when the records arrive: nothing is
/// dead-lettered or skipped for it, health is degraded meanwhile, and once the registry is back every record is handled
/// in order; the poison record among them is dead-lettered as usual. The consumer and the registry client are both
/// configured from configuration, with librdkafka's and Confluent's setting names.
/// </summary>
public sealed class HostedConsumerRegistryTests : IDisposable
{
    private static readonly TimeSpan Deadline = TimeSpan.FromSeconds(60);

    private readonly EmbeddedKafkaCluster _cluster = EmbeddedKafkaCluster.Start(1);
    private readonly InProcessSchemaRegistry _registry = InProcessSchemaRegistry.Start();

    public void Dispose()
    {
        _registry.Dispose();
        _cluster.Dispose();
    }

    [Fact]
    public async Task ARegistryOutage_DegradesHealth_SkipsNothing_AndEveryRecordIsHandledInOrderOnceItIsBack()
    {
        _cluster.SetGroupInitialRebalanceDelay(TimeSpan.Zero);
        List<IMessage> orders = OrderTopic.Produce(_cluster, _registry, "orders"); // six orders, a poison record at offset 3
        _cluster.CreateTopic("orders.dlq", 1);
        _registry.Stop();

        // Both from configuration, as a service would have them: the consumer and the registry client (Confluent's names).
        var handled = new ConcurrentQueue<(long Offset, IMessage? Value)>();
        using IHost host = BuildHost(
            "hosted-registry-" + Guid.NewGuid().ToString("N"),
            new() { ["max.retries"] = "0", ["request.timeout.ms"] = "2000" },
            record => handled.Enqueue((record.Offset.Value, record.Message.Value)));
        await host.StartAsync().WaitAsync(Deadline);
        var health = host.Services.GetRequiredService<HealthCheckService>();

        HealthReport degraded = await Poll(health, HealthStatus.Degraded);
        Assert.Empty(handled);
        _registry.StartAgain();
        Wait.Until(() => handled.Count == 6, "the six orders handled", Deadline);
        HealthReport healthy = await Poll(health, HealthStatus.Healthy);
        await host.StopAsync().WaitAsync(Deadline);

        Assert.Contains("cannot obtain a writer's schema", degraded.Entries["kafkaprotobuf-consumers"].Description ?? string.Empty, StringComparison.Ordinal);
        Assert.Equal([0L, 1, 2, 4, 5, 6], handled.Select(h => h.Offset));
        Assert.Equal(orders.Select(o => o.Descriptor.FullName), handled.Select(h => h.Value!.Descriptor.FullName));
        Assert.Equal(HealthStatus.Healthy, healthy.Status);
        ConsumeResult<byte[], byte[]> letter = Assert.Single(ReadDeadLetters(_cluster.CreateConsumerConfig(), "orders.dlq", Deadline));
        Assert.Equal(3, SourceOf(letter.Message.Headers).Offset.Value);
        Assert.Equal(nameof(FrameErrorCode.UnknownMagicByte), System.Text.Encoding.UTF8.GetString(letter.Message.Headers.GetLastBytes(DeadLetterHeaderNames.ErrorCode)));
    }

    [Fact]
    public async Task RefusedCredentials_StopTheConsumer_CommittingNothing_AndWithTheRightSecretFromConfigurationEveryRecordIsHandled()
    {
        _cluster.SetGroupInitialRebalanceDelay(TimeSpan.Zero);
        List<IMessage> orders = OrderTopic.Produce(_cluster, _registry, "orders"); // six orders, a poison record at offset 3
        _cluster.CreateTopic("orders.dlq", 1);
        using var tokens = new InProcessTokenEndpoint("orders-service", "right-Secret-1", TimeSpan.FromMinutes(5));
        _registry.RequireBearerToken(tokens.IsValid);
        string group = "hosted-oauth-" + Guid.NewGuid().ToString("N");

        (List<long> refusedHandled, HealthReport refused) = await RunUntil(group, "wrong-Secret-2", HealthStatus.Unhealthy, handledCount: 0);
        List<TopicPartitionOffset> committed;
        using (IConsumer<Ignore, Ignore> probe = new ConsumerBuilder<Ignore, Ignore>(_cluster.CreateConsumerConfig(group)).Build())
        {
            committed = probe.Committed([new TopicPartition("orders", 0)], Deadline);
        }

        (List<long> handled, _) = await RunUntil(group + "-fixed", "right-Secret-1", HealthStatus.Healthy, handledCount: 6);

        Assert.Empty(refusedHandled);
        Assert.Equal(Offset.Unset, Assert.Single(committed).Offset); // the refused run committed nothing
        string reason = refused.Entries["kafkaprotobuf-consumers"].Description ?? string.Empty;
        Assert.Contains("refused this application's credentials", reason, StringComparison.Ordinal);
        Assert.Contains("invalid_client", reason, StringComparison.Ordinal);
        Assert.DoesNotContain("wrong-Secret-2", reason, StringComparison.Ordinal);
        Assert.Equal([0L, 1, 2, 4, 5, 6], handled);
        Assert.Single(ReadDeadLetters(_cluster.CreateConsumerConfig(), "orders.dlq", Deadline)); // the poison record only
        Assert.Equal(orders.Count, handled.Count);

        async Task<(List<long> Handled, HealthReport Health)> RunUntil(string groupId, string secret, HealthStatus wanted, int handledCount)
        {
            var handled = new ConcurrentQueue<long>();
            using IHost host = BuildHost(
                groupId,
                new()
                {
                    ["bearer.auth.credentials.source"] = "OAUTHBEARER",
                    ["bearer.auth.token.endpoint.url"] = tokens.Url,
                    ["bearer.auth.client.id"] = "orders-service",
                    ["bearer.auth.client.secret"] = secret,
                    ["bearer.auth.logical.cluster"] = "lsrc-12345",
                },
                record => handled.Enqueue(record.Offset.Value));
            await host.StartAsync().WaitAsync(Deadline);
            HealthReport report = await Poll(host.Services.GetRequiredService<HealthCheckService>(), wanted);
            Wait.Until(() => handled.Count == handledCount, handledCount + " records handled", Deadline);
            await host.StopAsync().WaitAsync(Deadline);
            return (handled.ToList(), report);
        }
    }

    /// <summary>The hosted consumer of "orders" and its registry client, both from configuration; the registry's settings by Confluent's names.</summary>
    private IHost BuildHost(string group, Dictionary<string, string?> registry, Action<ConsumeResult<Ignore, IMessage>> handle)
    {
        var settings = new Dictionary<string, string?>
        {
            ["Kafka:Orders:Topics:0"] = "orders",
            ["Kafka:Orders:DeadLetterTopic"] = "orders.dlq",
            ["Kafka:Orders:ReadAgainDelay"] = "00:00:00.05",
            ["Kafka:Orders:Consumer:bootstrap.servers"] = _cluster.BootstrapServers,
            ["Kafka:Orders:Consumer:group.id"] = group,
            ["Kafka:Orders:Consumer:auto.offset.reset"] = "earliest",
            ["Kafka:Orders:Consumer:auto.commit.interval.ms"] = "100",
            ["SchemaRegistry:schema.registry.url"] = _registry.Url,
        };
        foreach (KeyValuePair<string, string?> setting in registry)
        {
            settings["SchemaRegistry:schema.registry." + setting.Key] = setting.Value;
        }

        IConfiguration configuration = new ConfigurationBuilder().AddInMemoryCollection(settings).Build();
        var builder = new HostApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Services.AddHealthChecks().AddKafkaProtobufConsumers();
        builder.Services.AddSingleton(_ => new RegistryClient(RegistryClientOptions.FromSettings(configuration.GetSection("SchemaRegistry").AsEnumerable(makePathsRelative: true))));
        builder.Services
            .AddKafkaProtobufConsumer<Ignore, IMessage>("orders", configuration.GetSection("Kafka:Orders"), options =>
            {
                options.CopyProducer = _cluster.CreateProducerConfig();
                options.FailureExitCode = 0; // not the test process's exit code
                options.StopApplicationOnFailure = false;
            })
            .WithProtobufValues(services => services.GetRequiredService<RegistryClient>(), ShopReflection.Descriptor)
            .Handle((record, _) =>
            {
                handle(record);
                return Task.CompletedTask;
            });
        return builder.Build();
    }

    private static Task<HealthReport> Poll(HealthCheckService health, HealthStatus wanted) => HostedConsumerTestBase.PollHealth(health, wanted);
}
