using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using OpenTelemetry.Trace;
using Orders.V1;
using Xunit;

namespace KafkaProtobuf.Aspire.Tests;

/// <summary>
/// KafkaProtobuf.Aspire in a host of its own, against the embedded cluster and the in-process registry: the connection
/// strings Aspire hands a service, the configuration section, the health checks, telemetry, logging and keyed services.
/// </summary>
public sealed class ClientIntegrationTests : IDisposable
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(60);
    private readonly EmbeddedKafkaCluster _cluster = EmbeddedKafkaCluster.Start();
    private readonly InProcessSchemaRegistry _registry = InProcessSchemaRegistry.Start();

    public ClientIntegrationTests() => _cluster.CreateTopic("orders", 1);

    public void Dispose()
    {
        _registry.Dispose();
        _cluster.Dispose();
    }

    [Fact]
    public async Task KeyValuePairs_WithConfluentNames_Connect_AndTheValueIsRegisteredThenRead()
    {
        using IHost host = Build(new()
        {
            ["ConnectionStrings:kafka"] = "bootstrap.servers=" + _cluster.BootstrapServers + ";client.id='orders-writer';acks=all",
            ["ConnectionStrings:registry"] = _registry.Url,
        }, builder =>
        {
            builder.AddKafkaProtobufRegistryClient("registry");
            builder.AddKafkaProtobufProducer<string, OrderPlaced>("kafka");
        });

        IProducer<string, OrderPlaced> producer = host.Services.GetRequiredService<IProducer<string, OrderPlaced>>();
        Assert.StartsWith("orders-writer#producer-", producer.Name, StringComparison.Ordinal);
        await producer.ProduceAsync("orders", new Message<string, OrderPlaced> { Key = "a", Value = new OrderPlaced { OrderId = "a", Cents = 5 } }).WaitAsync(Timeout);
        Assert.Equal(OrderPlaced.Descriptor.Name, Assert.Single(ReadValues()).Descriptor.Name);
    }

    [Fact]
    public async Task AHostList_AsAspireHostingKafkaGivesIt_Connects()
    {
        // Aspire.Hosting.Kafka's connection string: host:port, its host the name the container is reached by.
        string first = _cluster.BootstrapServers.Split(',')[0];
        using IHost host = Build(new()
        {
            ["ConnectionStrings:kafka"] = "localhost:" + first.Split(':')[1],
            ["ConnectionStrings:registry"] = _registry.Url,
        }, builder =>
        {
            builder.AddKafkaProtobufRegistryClient("registry");
            builder.AddKafkaProtobufProducer<string, OrderPlaced>("kafka");
        });

        DeliveryResult<string, OrderPlaced> delivered = await host.Services.GetRequiredService<IProducer<string, OrderPlaced>>()
            .ProduceAsync("orders", new Message<string, OrderPlaced> { Key = "b", Value = new OrderPlaced { OrderId = "b" } }).WaitAsync(Timeout);
        Assert.Equal(PersistenceStatus.Persisted, delivered.Status);
    }

    [Fact]
    public void NoConnectionString_FailsAtRegistration_NamingWhereItWasLookedFor()
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        InvalidOperationException missing = Assert.Throws<InvalidOperationException>(() => builder.AddKafkaProtobufConsumer<string, OrderPlaced>("kafka", "orders"));
        Assert.Contains("ConnectionStrings:kafka", missing.Message, StringComparison.Ordinal);
        Assert.Throws<InvalidOperationException>(() => builder.AddKafkaProtobufRegistryClient("registry"));
    }

    [Fact]
    public void Pairs_WithoutBootstrapServers_AreRefused_WithoutEchoingTheirValues()
    {
        HostApplicationBuilder builder = Builder(new() { ["ConnectionStrings:kafka"] = "security.protocol=SASL_SSL;sasl.password=hunter2" });
        ArgumentException refused = Assert.Throws<ArgumentException>(() => builder.AddKafkaProtobufConsumer<string, OrderPlaced>("kafka", "orders"));
        Assert.Contains("no bootstrap.servers", refused.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("hunter2", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void PairsThatCannotBeParsed_AreRefused_WithoutEchoingThem()
    {
        HostApplicationBuilder builder = Builder(new() { ["ConnectionStrings:kafka"] = "bootstrap.servers=a:9092;sasl.password='hunter2" });
        ArgumentException refused = Assert.Throws<ArgumentException>(() => builder.AddKafkaProtobufConsumer<string, OrderPlaced>("kafka", "orders"));
        Assert.Contains("neither a host list nor key=value pairs", refused.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("hunter2", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task RegistryPairs_WithConfluentNames_Authenticate_AndWrongCredentialsAreUnhealthy()
    {
        _registry.RequireBasicAuth("svc", "s3cret");
        using IHost good = Build(new() { ["ConnectionStrings:registry"] = "url=" + _registry.Url + ";basic.auth.user.info=svc:s3cret" }, b => b.AddKafkaProtobufRegistryClient("registry"));
        using IHost bad = Build(new() { ["ConnectionStrings:registry"] = "schema.registry.url=" + _registry.Url + ";schema.registry.basic.auth.user.info=svc:wrong" }, b => b.AddKafkaProtobufRegistryClient("registry"));

        HealthReport accepted = await good.Services.GetRequiredService<HealthCheckService>().CheckHealthAsync().WaitAsync(Timeout);
        HealthReport refused = await bad.Services.GetRequiredService<HealthCheckService>().CheckHealthAsync().WaitAsync(Timeout);
        Assert.Equal(HealthStatus.Healthy, accepted.Status);
        Assert.Equal(HealthStatus.Unhealthy, refused.Status);
        Assert.Contains("401", refused.Entries["kafkaprotobuf-registry-registry"].Description, StringComparison.Ordinal);
        Assert.DoesNotContain("wrong", refused.Entries["kafkaprotobuf-registry-registry"].Description, StringComparison.Ordinal);
    }

    [Fact]
    public void AProducerSetting_ItDoesNotKnow_IsRefused_WithTheKeysItKnows()
    {
        HostApplicationBuilder builder = Builder(new()
        {
            ["ConnectionStrings:kafka"] = _cluster.BootstrapServers,
            ["Aspire:KafkaProtobuf:Producers:kafka:Serialiser:AutoRegisterSchemas"] = "false",
        });
        InvalidOperationException refused = Assert.Throws<InvalidOperationException>(() => builder.AddKafkaProtobufProducer<string, OrderPlaced>("kafka"));
        Assert.Contains("Aspire:KafkaProtobuf:Producers:kafka:Serialiser", refused.Message, StringComparison.Ordinal);
        Assert.Contains("Producer, Serializer, Registry", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task TheProducerSection_AndCode_AreApplied_CodeLast()
    {
        using IHost host = Build(new()
        {
            ["ConnectionStrings:kafka"] = _cluster.BootstrapServers,
            ["ConnectionStrings:registry"] = _registry.Url,
            ["Aspire:KafkaProtobuf:Producers:kafka:Producer:linger.ms"] = "7",
            ["Aspire:KafkaProtobuf:Producers:kafka:Serializer:AutoRegisterSchemas"] = "false",
        }, builder =>
        {
            builder.AddKafkaProtobufRegistryClient("registry");
            builder.AddKafkaProtobufProducer<string, OrderPlaced>(
                "kafka",
                configureSettings: null,
                configureOptions: options =>
                {
                    Assert.Equal(7, options.Producer.LingerMs);
                    Assert.False(options.Serializer.AutoRegisterSchemas);
                    Assert.Equal(_cluster.BootstrapServers, options.Producer.BootstrapServers);
                    options.Serializer.AutoRegisterSchemas = true;
                },
                configureBuilder: null);
        });

        // AutoRegisterSchemas set back to true in code: the first record registers its schema.
        await host.Services.GetRequiredService<IProducer<string, OrderPlaced>>()
            .ProduceAsync("orders", new Message<string, OrderPlaced> { Key = "c", Value = new OrderPlaced { OrderId = "c" } }).WaitAsync(Timeout);
        Assert.Equal(1, _registry.RequestCount("/subjects/orders-value/versions"));
    }

    [Fact]
    public async Task HealthChecks_NeedNoWriteRights_AndTheRegistrysFollowsItsOutage()
    {
        using IHost host = Build(new()
        {
            ["ConnectionStrings:kafka"] = _cluster.BootstrapServers,
            ["ConnectionStrings:registry"] = _registry.Url,
        }, builder =>
        {
            builder.AddKafkaProtobufRegistryClient("registry");
            builder.AddKafkaProtobufProducer<string, OrderPlaced>("kafka");
            builder.AddKafkaProtobufConsumer<string, OrderPlaced>("kafka", "orders", configureSettings: null, configureOptions: o => o.Topics.Add("orders")).WithProtobufValues().Handle((_, _) => Task.CompletedTask);
        });
        HealthCheckService health = host.Services.GetRequiredService<HealthCheckService>();

        _cluster.ResetRequestCounts();
        HealthReport before = await health.CheckHealthAsync().WaitAsync(Timeout);
        Assert.Equal(["kafkaprotobuf-consumers", "kafkaprotobuf-producer-kafka", "kafkaprotobuf-registry-registry"], before.Entries.Keys.Order().ToArray());
        Assert.Equal(HealthStatus.Healthy, before.Entries["kafkaprotobuf-producer-kafka"].Status);
        Assert.Equal(HealthStatus.Healthy, before.Entries["kafkaprotobuf-registry-registry"].Status);
        Assert.Equal(0, _cluster.RequestCount(KafkaApi.Produce)); // the producer's check writes nothing
        Assert.Equal(0, _registry.RequestCount("/subjects/orders-value/versions")); // nor does the registry's

        _registry.Stop();
        HealthReport during = await health.CheckHealthAsync().WaitAsync(Timeout);
        Assert.Equal(HealthStatus.Unhealthy, during.Entries["kafkaprotobuf-registry-registry"].Status);
        _registry.StartAgain();
        HealthReport after = await health.CheckHealthAsync().WaitAsync(Timeout);
        Assert.Equal(HealthStatus.Healthy, after.Entries["kafkaprotobuf-registry-registry"].Status);
    }

    [Fact]
    public async Task DisableHealthChecksAndTelemetry_InTheSection_LeaveThemOut()
    {
        using IHost host = Build(new()
        {
            ["ConnectionStrings:kafka"] = _cluster.BootstrapServers,
            ["ConnectionStrings:registry"] = _registry.Url,
            ["Aspire:KafkaProtobuf:DisableHealthChecks"] = "true",
            ["Aspire:KafkaProtobuf:DisableTracing"] = "true",
            ["Aspire:KafkaProtobuf:DisableMetrics"] = "true",
        }, builder =>
        {
            builder.Services.AddHealthChecks();
            builder.AddKafkaProtobufRegistryClient("registry");
            builder.AddKafkaProtobufProducer<string, OrderPlaced>("kafka");
        });

        Assert.Empty((await host.Services.GetRequiredService<HealthCheckService>().CheckHealthAsync().WaitAsync(Timeout)).Entries);
        Assert.Null(host.Services.GetService<TracerProvider>());
    }

    [Fact]
    public async Task AClientsOwnSwitch_WinsOverTheRoots_AndTheConsumersSectionStillReadsItsOptions()
    {
        using IHost host = Build(new()
        {
            ["ConnectionStrings:kafka"] = _cluster.BootstrapServers,
            ["ConnectionStrings:registry"] = _registry.Url,
            ["Aspire:KafkaProtobuf:DisableHealthChecks"] = "true",
            ["Aspire:KafkaProtobuf:Producers:kafka:DisableHealthChecks"] = "false", // this one keeps its check
            ["Aspire:KafkaProtobuf:Consumers:orders:DisableHealthChecks"] = "true",
            ["Aspire:KafkaProtobuf:Consumers:orders:Topics:0"] = "orders",
            ["Aspire:KafkaProtobuf:Consumers:orders:MaxConcurrentHandlers"] = "2",
        }, builder =>
        {
            builder.Services.AddHealthChecks();
            builder.AddKafkaProtobufRegistryClient("registry");
            builder.AddKafkaProtobufProducer<string, OrderPlaced>("kafka");
            builder.AddKafkaProtobufConsumer<string, OrderPlaced>("kafka", "orders").WithProtobufValues().Handle((_, _) => Task.CompletedTask);
        });

        Assert.Equal(["kafkaprotobuf-producer-kafka"], (await host.Services.GetRequiredService<HealthCheckService>().CheckHealthAsync().WaitAsync(Timeout)).Entries.Keys);
        // The switch is the integration's: the consumer's own reader, which refuses keys it does not know, never sees it,
        // and reads the rest of its section.
        await host.StartAsync().WaitAsync(Timeout);
        var operations = host.Services.GetRequiredService<KafkaProtobufConsumerOperations>();
        using (var giveUp = new CancellationTokenSource(Timeout))
        {
            while (operations.GetConsumers().Single().State != KafkaProtobufConsumerState.Running)
            {
                await Task.Delay(50, giveUp.Token);
            }
        }

        ConsumerSnapshot consumer = operations.GetConsumers().Single();
        Assert.Equal(["orders"], consumer.Topics);
        Assert.Equal("orders", consumer.GroupId);
        await host.StopAsync().WaitAsync(Timeout);

        HostApplicationBuilder wrong = Builder(new() { ["ConnectionStrings:kafka"] = _cluster.BootstrapServers, ["Aspire:KafkaProtobuf:Consumers:orders:DisableMetrics"] = "maybe" });
        InvalidOperationException refused = Assert.Throws<InvalidOperationException>(() => wrong.AddKafkaProtobufConsumer<string, OrderPlaced>("kafka", "orders"));
        Assert.Contains("Aspire:KafkaProtobuf:Consumers:orders:DisableMetrics", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task CodeThatReplacesTheConsumerConfig_KeepsTheConnection_AndItsOwnSettings()
    {
        using IHost host = Build(new() { ["ConnectionStrings:kafka"] = _cluster.BootstrapServers }, builder =>
            builder.AddKafkaProtobufConsumer<string, OrderPlaced>("kafka", "orders", null, options =>
            {
                options.Consumer = new ConsumerConfig { ClientId = "replaced" }; // bootstrap servers and group id gone with the old one
                options.Topics.Add("orders");
            }).WithProtobufValues().Handle((_, _) => Task.CompletedTask));

        await host.StartAsync().WaitAsync(Timeout);
        var operations = host.Services.GetRequiredService<KafkaProtobufConsumerOperations>();
        using (var giveUp = new CancellationTokenSource(Timeout))
        {
            while (operations.GetConsumers().Single() is { State: not KafkaProtobufConsumerState.Running } consumer)
            {
                Assert.NotEqual(KafkaProtobufConsumerState.Failed, consumer.State);
                await Task.Delay(50, giveUp.Token);
            }
        }

        Assert.Equal("orders", operations.GetConsumers().Single().GroupId);
        await host.StopAsync().WaitAsync(Timeout);
    }

    [Fact]
    public void Tracing_ListensToTheHostedConsumersSource()
    {
        using IHost host = Build(new()
        {
            ["ConnectionStrings:kafka"] = _cluster.BootstrapServers,
        }, builder => builder.AddKafkaProtobufConsumer<string, OrderPlaced>("kafka", "orders", configureSettings: null, configureOptions: o => o.Topics.Add("orders")).WithProtobufValues().Handle((_, _) => Task.CompletedTask));

        Assert.NotNull(host.Services.GetService<TracerProvider>());
        using var source = new ActivitySource(KafkaProtobufConsumerTracing.ActivitySourceName);
        Assert.True(source.HasListeners());
    }

    [Fact]
    public async Task TheProducersLibrdkafkaLog_GoesToILogger()
    {
        var logged = new ConcurrentQueue<string>();
        using IHost host = Build(new()
        {
            ["ConnectionStrings:kafka"] = _cluster.BootstrapServers,
            ["ConnectionStrings:registry"] = _registry.Url,
            ["Aspire:KafkaProtobuf:Producers:kafka:Producer:debug"] = "broker",
        }, builder =>
        {
            builder.Logging.AddProvider(new ListLoggerProvider(logged)).SetMinimumLevel(LogLevel.Debug); // librdkafka's debug lines are Debug
            builder.AddKafkaProtobufRegistryClient("registry");
            builder.AddKafkaProtobufProducer<string, OrderPlaced>("kafka");
        });

        await host.Services.GetRequiredService<IProducer<string, OrderPlaced>>()
            .ProduceAsync("orders", new Message<string, OrderPlaced> { Key = "d", Value = new OrderPlaced { OrderId = "d" } }).WaitAsync(Timeout);
        Assert.Contains(logged, line => line.StartsWith("KafkaProtobuf.Aspire.Producer: librdkafka (kafka) ", StringComparison.Ordinal));
    }

    [Fact]
    public async Task KeyedRegistrations_AreResolvedByConnectionName()
    {
        using IHost host = Build(new()
        {
            ["ConnectionStrings:audit-kafka"] = _cluster.BootstrapServers,
            ["ConnectionStrings:audit-registry"] = _registry.Url,
            ["Aspire:KafkaProtobuf:Producers:audit-kafka:RegistryConnectionName"] = "audit-registry",
        }, builder =>
        {
            builder.AddKeyedKafkaProtobufRegistryClient("audit-registry");
            builder.AddKeyedKafkaProtobufProducer<string, OrderPlaced>("audit-kafka");
        });

        Assert.Null(host.Services.GetService<IProducer<string, OrderPlaced>>());
        Assert.NotNull(host.Services.GetRequiredKeyedService<RegistryClient>("audit-registry"));
        await host.Services.GetRequiredKeyedService<IProducer<string, OrderPlaced>>("audit-kafka")
            .ProduceAsync("orders", new Message<string, OrderPlaced> { Key = "e", Value = new OrderPlaced { OrderId = "e" } }).WaitAsync(Timeout);
        Assert.Equal(1, _registry.RequestCount("/subjects/orders-value/versions"));
    }

    private static HostApplicationBuilder Builder(Dictionary<string, string?> configuration)
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Configuration.AddInMemoryCollection(configuration);
        return builder;
    }

    private static IHost Build(Dictionary<string, string?> configuration, Action<HostApplicationBuilder> register)
    {
        HostApplicationBuilder builder = Builder(configuration);
        register(builder);
        return builder.Build();
    }

    private List<Google.Protobuf.IMessage> ReadValues()
    {
        using IConsumer<string, OrderPlaced> consumer = new ConsumerBuilder<string, OrderPlaced>(_cluster.CreateConsumerConfig())
            .SetProtobufValueDeserializer()
            .Build();
        consumer.Assign(new TopicPartitionOffset("orders", 0, Offset.Beginning));
        var values = new List<Google.Protobuf.IMessage>();
        while (consumer.Consume(TimeSpan.FromSeconds(5)) is { } record)
        {
            values.Add(record.Message.Value);
        }

        return values;
    }

    private sealed class ListLoggerProvider(ConcurrentQueue<string> lines) : ILoggerProvider
    {
        public ILogger CreateLogger(string categoryName) => new ListLogger(categoryName, lines);

        public void Dispose()
        {
        }

        private sealed class ListLogger(string category, ConcurrentQueue<string> lines) : ILogger
        {
            public IDisposable? BeginScope<TState>(TState state)
                where TState : notnull => null;

            public bool IsEnabled(LogLevel logLevel) => true;

            public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter) =>
                lines.Enqueue(category + ": " + formatter(state, exception));
        }
    }
}
