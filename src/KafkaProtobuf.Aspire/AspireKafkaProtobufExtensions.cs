using System;
using System.Collections.Generic;
using System.Linq;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.Aspire;
using KafkaProtobuf.Aspire.Configuration;
using KafkaProtobuf.Aspire.Connections;
using KafkaProtobuf.Aspire.Health;
using KafkaProtobuf.Diagnostics;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.SchemaRegistry;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Logging;
using OpenTelemetry.Metrics;
using OpenTelemetry.Trace;

namespace Microsoft.Extensions.Hosting;

/// <summary>
/// .NET Aspire client integration: KafkaProtobuf's hosted consumer, a registering Protobuf producer and the Schema
/// Registry client, each added by a connection name (<c>ConnectionStrings:{connectionName}</c>, which <c>WithReference</c>
/// in the AppHost sets), with a health check, OpenTelemetry tracing and metrics and librdkafka's log through
/// <see cref="ILogger"/>, each switchable off (<see cref="KafkaProtobufClientSettings"/>).
/// </summary>
public static class AspireKafkaProtobufExtensions
{
    private const string HealthCheckPrefix = "kafkaprotobuf";

    /// <summary>
    /// Adds a hosted consumer connected to the Kafka of <paramref name="connectionName"/>, its options read from
    /// <c>Aspire:KafkaProtobuf:Consumers:{consumerName}</c> (the keys of docs/hosting.md), then the connection string's
    /// settings, then <paramref name="configureOptions"/>. The group id defaults to the consumer's name. Complete it
    /// with the returned builder (deserializers and a handler), as with <c>services.AddKafkaProtobufConsumer</c>.
    /// </summary>
    /// <typeparam name="TKey">The key type.</typeparam>
    /// <typeparam name="TValue">The value type: a generated message type, or <see cref="IMessage"/> for several.</typeparam>
    /// <param name="builder">The service's host builder.</param>
    /// <param name="connectionName">The Kafka resource's connection name.</param>
    /// <param name="consumerName">The consumer's name, unique in the service: its configuration section, logs, metrics and health data.</param>
    /// <param name="configureSettings">Changes the settings read from configuration; optional.</param>
    /// <param name="configureOptions">Sets or overrides options after the section and the connection string; optional.</param>
    /// <returns>The consumer's builder.</returns>
    /// <exception cref="InvalidOperationException">No connection string, or a switch in <c>Aspire:KafkaProtobuf</c> that is not true or false.</exception>
    /// <exception cref="ArgumentException">A name is empty, the consumer's name is taken, or the connection string cannot be read.</exception>
    public static KafkaProtobufConsumerBuilder<TKey, TValue> AddKafkaProtobufConsumer<TKey, TValue>(
        this IHostApplicationBuilder builder,
        string connectionName,
        string consumerName,
        Action<KafkaProtobufClientSettings>? configureSettings = null,
        Action<KafkaProtobufConsumerOptions>? configureOptions = null)
    {
        KafkaProtobufClientSettings settings = Settings(builder, connectionName, configureSettings);
        if (string.IsNullOrWhiteSpace(consumerName))
        {
            throw new ArgumentException("A consumer needs a name.", nameof(consumerName));
        }

        // Read now, so that a connection string that cannot be read fails the service at start-up, not at the first record.
        IReadOnlyList<KeyValuePair<string, string>> connection = KafkaConnectionString.Settings(
            AspireSections.ConnectionString(settings, connectionName), connectionName);
        KafkaProtobufConsumerBuilder<TKey, TValue> consumer = builder.Services.AddKafkaProtobufConsumer<TKey, TValue>(
            consumerName,
            builder.Configuration.GetSection(AspireSections.Consumer(consumerName)),
            options =>
            {
                foreach (KeyValuePair<string, string> setting in connection)
                {
                    options.Consumer.Set(setting.Key, setting.Value);
                    options.CopyProducer?.Set(setting.Key, setting.Value);
                }

                options.Consumer.GroupId ??= consumerName;
                configureOptions?.Invoke(options);
            });

        if (!settings.DisableHealthChecks && AddOnce(builder.Services, HealthCheckPrefix + "-consumers"))
        {
            builder.Services.AddHealthChecks().AddKafkaProtobufConsumers(HealthCheckPrefix + "-consumers");
        }

        AddTelemetry(builder, settings);
        return consumer;
    }

    /// <summary>
    /// Adds the Schema Registry client of <paramref name="connectionName"/> as a singleton <see cref="RegistryClient"/>,
    /// its settings read from <c>Aspire:KafkaProtobuf:Registries:{connectionName}</c> (Confluent's
    /// <c>schema.registry.*</c> names), then the connection string's, then <paramref name="configureOptions"/>; with a
    /// health check that reads (<c>GET /schemas/types</c>) and never writes.
    /// </summary>
    /// <param name="builder">The service's host builder.</param>
    /// <param name="connectionName">The registry resource's connection name.</param>
    /// <param name="configureSettings">Changes the settings read from configuration; optional.</param>
    /// <param name="configureOptions">Sets or overrides the client's options; optional.</param>
    /// <exception cref="InvalidOperationException">No connection string, or a switch that is not true or false.</exception>
    /// <exception cref="ArgumentException">The connection string or a setting cannot be read.</exception>
    public static void AddKafkaProtobufRegistryClient(
        this IHostApplicationBuilder builder,
        string connectionName,
        Action<KafkaProtobufClientSettings>? configureSettings = null,
        Action<RegistryClientOptions>? configureOptions = null) =>
        AddRegistryClient(builder, connectionName, configureSettings, configureOptions, keyed: false);

    /// <summary>
    /// As <see cref="AddKafkaProtobufRegistryClient"/>, registered with <paramref name="connectionName"/> as its service
    /// key (<c>[FromKeyedServices("registry")] RegistryClient</c>), for a service that talks to several registries.
    /// </summary>
    /// <param name="builder">The service's host builder.</param>
    /// <param name="connectionName">The registry resource's connection name, and the service key.</param>
    /// <param name="configureSettings">Changes the settings read from configuration; optional.</param>
    /// <param name="configureOptions">Sets or overrides the client's options; optional.</param>
    /// <exception cref="InvalidOperationException">No connection string, or a switch that is not true or false.</exception>
    /// <exception cref="ArgumentException">The connection string or a setting cannot be read.</exception>
    public static void AddKeyedKafkaProtobufRegistryClient(
        this IHostApplicationBuilder builder,
        string connectionName,
        Action<KafkaProtobufClientSettings>? configureSettings = null,
        Action<RegistryClientOptions>? configureOptions = null) =>
        AddRegistryClient(builder, connectionName, configureSettings, configureOptions, keyed: true);

    /// <summary>
    /// Adds a singleton <see cref="IProducer{TKey, TValue}"/> connected to the Kafka of <paramref name="connectionName"/>
    /// whose values are written by <see cref="RegistryProtobufSerializer{T}"/> (the schema registered on first use) with
    /// the registry client added by <see cref="AddKafkaProtobufRegistryClient"/> (or the keyed one
    /// <see cref="KafkaProtobufProducerOptions.Registry"/> names); keys by Confluent.Kafka's serializers unless
    /// <paramref name="configureBuilder"/> sets one. Options from <c>Aspire:KafkaProtobuf:Producers:{connectionName}</c>,
    /// then the connection string, then <paramref name="configureOptions"/>. Flushed when the host stops; a health check
    /// asks the brokers for metadata on its connections (nothing is written); librdkafka's log goes to <see cref="ILogger"/>.
    /// </summary>
    /// <typeparam name="TKey">The key type.</typeparam>
    /// <typeparam name="TValue">The generated message type of the values.</typeparam>
    /// <param name="builder">The service's host builder.</param>
    /// <param name="connectionName">The Kafka resource's connection name.</param>
    /// <param name="configureSettings">Changes the settings read from configuration; optional.</param>
    /// <param name="configureOptions">Sets or overrides the options; optional.</param>
    /// <param name="configureBuilder">Changes the producer's builder before it is built (a key serializer, handlers); optional.</param>
    /// <exception cref="InvalidOperationException">No connection string, or a setting that cannot be read.</exception>
    /// <exception cref="ArgumentException">The connection string cannot be read.</exception>
    public static void AddKafkaProtobufProducer<TKey, TValue>(
        this IHostApplicationBuilder builder,
        string connectionName,
        Action<KafkaProtobufClientSettings>? configureSettings = null,
        Action<KafkaProtobufProducerOptions>? configureOptions = null,
        Action<IServiceProvider, ProducerBuilder<TKey, TValue>>? configureBuilder = null)
        where TValue : class, IMessage<TValue>, new() =>
        AddProducer(builder, connectionName, configureSettings, configureOptions, configureBuilder, keyed: false);

    /// <summary>
    /// As <see cref="AddKafkaProtobufProducer{TKey, TValue}"/>, registered with <paramref name="connectionName"/> as its
    /// service key, for a service that writes to several clusters.
    /// </summary>
    /// <typeparam name="TKey">The key type.</typeparam>
    /// <typeparam name="TValue">The generated message type of the values.</typeparam>
    /// <param name="builder">The service's host builder.</param>
    /// <param name="connectionName">The Kafka resource's connection name, and the service key.</param>
    /// <param name="configureSettings">Changes the settings read from configuration; optional.</param>
    /// <param name="configureOptions">Sets or overrides the options; optional.</param>
    /// <param name="configureBuilder">Changes the producer's builder before it is built; optional.</param>
    /// <exception cref="InvalidOperationException">No connection string, or a setting that cannot be read.</exception>
    /// <exception cref="ArgumentException">The connection string cannot be read.</exception>
    public static void AddKeyedKafkaProtobufProducer<TKey, TValue>(
        this IHostApplicationBuilder builder,
        string connectionName,
        Action<KafkaProtobufClientSettings>? configureSettings = null,
        Action<KafkaProtobufProducerOptions>? configureOptions = null,
        Action<IServiceProvider, ProducerBuilder<TKey, TValue>>? configureBuilder = null)
        where TValue : class, IMessage<TValue>, new() =>
        AddProducer(builder, connectionName, configureSettings, configureOptions, configureBuilder, keyed: true);

    private static void AddRegistryClient(
        IHostApplicationBuilder builder,
        string connectionName,
        Action<KafkaProtobufClientSettings>? configureSettings,
        Action<RegistryClientOptions>? configureOptions,
        bool keyed)
    {
        KafkaProtobufClientSettings settings = Settings(builder, connectionName, configureSettings);
        IEnumerable<KeyValuePair<string, string?>> fromSection = builder.Configuration.GetSection(AspireSections.Registry(connectionName))
            .GetChildren()
            .Where(s => s.Value is not null)
            .Select(s => new KeyValuePair<string, string?>(
                s.Key.StartsWith("schema.registry.", StringComparison.Ordinal) ? s.Key : "schema.registry." + s.Key, s.Value));
        IReadOnlyList<KeyValuePair<string, string?>> fromConnection = RegistryConnectionString.Settings(
            AspireSections.ConnectionString(settings, connectionName), connectionName);

        // Read now: a setting that cannot be read fails the service at start-up. The connection string's settings win.
        var merged = new Dictionary<string, string?>(StringComparer.Ordinal);
        foreach (KeyValuePair<string, string?> setting in fromSection.Concat(fromConnection))
        {
            merged[setting.Key] = setting.Value;
        }

        _ = RegistryClientOptions.FromSettings(merged);

        RegistryClient Create(IServiceProvider services)
        {
            RegistryClientOptions options = RegistryClientOptions.FromSettings(merged);
            options.Logger ??= services.GetService<ILoggerFactory>()?.CreateLogger("KafkaProtobuf.SchemaRegistry");
            configureOptions?.Invoke(options);
            return new RegistryClient(options);
        }

        if (keyed)
        {
            builder.Services.AddKeyedSingleton(connectionName, (services, _) => Create(services));
        }
        else
        {
            builder.Services.AddSingleton(Create);
        }

        if (!settings.DisableHealthChecks && AddOnce(builder.Services, HealthCheckPrefix + "-registry-" + connectionName))
        {
            builder.Services.AddHealthChecks().Add(new HealthCheckRegistration(
                HealthCheckPrefix + "-registry-" + connectionName,
                services => new RegistryHealthCheck(keyed ? services.GetRequiredKeyedService<RegistryClient>(connectionName) : services.GetRequiredService<RegistryClient>()),
                failureStatus: default,
                tags: default));
        }
    }

    private static void AddProducer<TKey, TValue>(
        IHostApplicationBuilder builder,
        string connectionName,
        Action<KafkaProtobufClientSettings>? configureSettings,
        Action<KafkaProtobufProducerOptions>? configureOptions,
        Action<IServiceProvider, ProducerBuilder<TKey, TValue>>? configureBuilder,
        bool keyed)
        where TValue : class, IMessage<TValue>, new()
    {
        KafkaProtobufClientSettings settings = Settings(builder, connectionName, configureSettings);
        var options = new KafkaProtobufProducerOptions();
        ProducerSection.Apply(builder.Configuration.GetSection(AspireSections.Producer(connectionName)), options);
        KafkaConnectionString.ApplyTo(options.Producer, AspireSections.ConnectionString(settings, connectionName), connectionName);
        configureOptions?.Invoke(options);

        if (AddOnce(builder.Services, "producer-flush"))
        {
            builder.Services.AddSingleton<ProducerFlush>();
            builder.Services.AddHostedService(services => services.GetRequiredService<ProducerFlush>());
        }

        IProducer<TKey, TValue> Create(IServiceProvider services)
        {
            RegistryClient registry = options.Registry is null
                ? services.GetRequiredService<RegistryClient>()
                : services.GetRequiredKeyedService<RegistryClient>(options.Registry);
            var producer = new ProducerBuilder<TKey, TValue>(options.Producer)
                .SetProtobufValueSerializer(registry, options.Serializer);
            if (!settings.DisableLogging && services.GetService<ILoggerFactory>() is { } loggers)
            {
                ILogger logger = loggers.CreateLogger("KafkaProtobuf.Aspire.Producer");
                producer.SetLogHandler((_, message) => ProducerLog.Librdkafka(logger, message, connectionName))
                    .SetErrorHandler((_, error) => ProducerLog.ClientError(logger, error, connectionName));
            }

            configureBuilder?.Invoke(services, producer);
            IProducer<TKey, TValue> built = producer.Build();
            services.GetRequiredService<ProducerFlush>().Add(token => built.Flush(token));
            return built;
        }

        string check = HealthCheckPrefix + "-producer-" + connectionName;
        if (keyed)
        {
            builder.Services.AddKeyedSingleton(connectionName, (services, _) => Create(services));
        }
        else
        {
            builder.Services.AddSingleton(Create);
        }

        if (!settings.DisableHealthChecks && AddOnce(builder.Services, check))
        {
            builder.Services.AddHealthChecks().Add(new HealthCheckRegistration(
                check,
                services => new ProducerHealthCheck(() => (keyed
                    ? services.GetRequiredKeyedService<IProducer<TKey, TValue>>(connectionName)
                    : services.GetRequiredService<IProducer<TKey, TValue>>()).Handle),
                failureStatus: default,
                tags: default));
        }

        AddTelemetry(builder, settings);
    }

    private static KafkaProtobufClientSettings Settings(
        IHostApplicationBuilder builder, string connectionName, Action<KafkaProtobufClientSettings>? configureSettings)
    {
        if (builder is null)
        {
            throw new ArgumentNullException(nameof(builder));
        }

        if (string.IsNullOrWhiteSpace(connectionName))
        {
            throw new ArgumentException("A connection name is required.", nameof(connectionName));
        }

        KafkaProtobufClientSettings settings = AspireSections.Read(builder.Configuration, connectionName);
        configureSettings?.Invoke(settings);
        return settings;
    }

    /// <summary>The packages' activity source and meter, with OpenTelemetry (the exporter is the app's: Aspire's service defaults add OTLP).</summary>
    private static void AddTelemetry(IHostApplicationBuilder builder, KafkaProtobufClientSettings settings)
    {
        if (!settings.DisableTracing && AddOnce(builder.Services, "tracing"))
        {
            builder.Services.AddOpenTelemetry().WithTracing(tracing => tracing.AddSource(KafkaProtobufConsumerTracing.ActivitySourceName));
        }

        if (!settings.DisableMetrics && AddOnce(builder.Services, "metrics"))
        {
            builder.Services.AddOpenTelemetry().WithMetrics(metrics => metrics.AddMeter(KafkaProtobufMetrics.MeterName));
        }
    }

    /// <summary>True the first time a registration of this name is made in these services.</summary>
    private static bool AddOnce(IServiceCollection services, string registration)
    {
        Registrations? made = services.Where(d => d.ServiceType == typeof(Registrations)).Select(d => d.ImplementationInstance).OfType<Registrations>().FirstOrDefault();
        if (made is null)
        {
            made = new Registrations();
            services.AddSingleton(made);
        }

        return made.Names.Add(registration);
    }

    /// <summary>What this integration has registered once per service collection (health checks, telemetry).</summary>
    private sealed class Registrations
    {
        public HashSet<string> Names { get; } = new(StringComparer.Ordinal);
    }
}
