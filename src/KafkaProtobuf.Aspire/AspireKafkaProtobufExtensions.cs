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
using Microsoft.Extensions.Configuration;
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
/// <see cref="ILogger"/>, each switchable off (<see cref="KafkaProtobufConsumerSettings"/>,
/// <see cref="KafkaProtobufProducerSettings"/>, <see cref="KafkaProtobufRegistrySettings"/>). Each call comes as an
/// overload set, as Aspire's own integrations do: the connection alone, with settings, or with settings, options and
/// (a producer) its builder.
/// </summary>
public static class AspireKafkaProtobufExtensions
{
    private const string HealthCheckPrefix = "kafkaprotobuf";

    /// <summary>
    /// Adds a hosted consumer connected to the Kafka of <paramref name="connectionName"/>, its options read from
    /// <c>Aspire:KafkaProtobuf:Consumers:{consumerName}</c> (the keys of docs/hosting.md), then the connection string's
    /// settings. The group id defaults to the consumer's name; a new group reads from where <c>auto.offset.reset</c>
    /// says (librdkafka's default: only what comes next). Complete it with the returned builder (deserializers and a
    /// handler), as with <c>services.AddKafkaProtobufConsumer</c>.
    /// </summary>
    /// <typeparam name="TKey">The key type.</typeparam>
    /// <typeparam name="TValue">The value type: a generated message type, or <see cref="IMessage"/> for several.</typeparam>
    /// <param name="builder">The service's host builder.</param>
    /// <param name="connectionName">The Kafka resource's connection name.</param>
    /// <param name="consumerName">The consumer's name, unique in the service: its configuration section, logs, metrics and health data.</param>
    /// <returns>The consumer's builder.</returns>
    /// <exception cref="InvalidOperationException">No connection string, or a switch that is not true or false.</exception>
    /// <exception cref="ArgumentException">A name is empty, the consumer's name is taken, or the connection string cannot be read.</exception>
    public static KafkaProtobufConsumerBuilder<TKey, TValue> AddKafkaProtobufConsumer<TKey, TValue>(
        this IHostApplicationBuilder builder, string connectionName, string consumerName) =>
        AddKafkaProtobufConsumer<TKey, TValue>(builder, connectionName, consumerName, null, null);

    /// <summary>
    /// As <see cref="AddKafkaProtobufConsumer{TKey, TValue}(IHostApplicationBuilder, string, string)"/>, with the
    /// settings changed by <paramref name="configureSettings"/>, as Aspire's integrations take them (options: the
    /// overload with both delegates, or the section).
    /// </summary>
    /// <typeparam name="TKey">The key type.</typeparam>
    /// <typeparam name="TValue">The value type: a generated message type, or <see cref="IMessage"/> for several.</typeparam>
    /// <param name="builder">The service's host builder.</param>
    /// <param name="connectionName">The Kafka resource's connection name.</param>
    /// <param name="consumerName">The consumer's name, unique in the service.</param>
    /// <param name="configureSettings">Changes the settings read from configuration (connection string, switches).</param>
    /// <returns>The consumer's builder.</returns>
    /// <exception cref="InvalidOperationException">No connection string, or a switch that is not true or false.</exception>
    /// <exception cref="ArgumentException">A name is empty, the consumer's name is taken, or the connection string cannot be read.</exception>
    public static KafkaProtobufConsumerBuilder<TKey, TValue> AddKafkaProtobufConsumer<TKey, TValue>(
        this IHostApplicationBuilder builder, string connectionName, string consumerName, Action<KafkaProtobufConsumerSettings> configureSettings) =>
        AddKafkaProtobufConsumer<TKey, TValue>(builder, connectionName, consumerName, configureSettings ?? throw new ArgumentNullException(nameof(configureSettings)), null);

    /// <summary>
    /// As <see cref="AddKafkaProtobufConsumer{TKey, TValue}(IHostApplicationBuilder, string, string)"/>, with the
    /// settings changed by <paramref name="configureSettings"/> and the options by <paramref name="configureOptions"/>.
    /// </summary>
    /// <typeparam name="TKey">The key type.</typeparam>
    /// <typeparam name="TValue">The value type: a generated message type, or <see cref="IMessage"/> for several.</typeparam>
    /// <param name="builder">The service's host builder.</param>
    /// <param name="connectionName">The Kafka resource's connection name.</param>
    /// <param name="consumerName">The consumer's name, unique in the service.</param>
    /// <param name="configureSettings">Changes the settings read from configuration (connection string, switches), or null.</param>
    /// <param name="configureOptions">Sets or overrides options after the section and the connection string, or null.</param>
    /// <returns>The consumer's builder.</returns>
    /// <exception cref="InvalidOperationException">No connection string, or a switch that is not true or false.</exception>
    /// <exception cref="ArgumentException">A name is empty, the consumer's name is taken, or the connection string cannot be read.</exception>
    public static KafkaProtobufConsumerBuilder<TKey, TValue> AddKafkaProtobufConsumer<TKey, TValue>(
        this IHostApplicationBuilder builder,
        string connectionName,
        string consumerName,
        Action<KafkaProtobufConsumerSettings>? configureSettings,
        Action<KafkaProtobufConsumerOptions>? configureOptions)
    {
        CheckConnection(builder, connectionName);
        if (string.IsNullOrWhiteSpace(consumerName))
        {
            throw new ArgumentException("A consumer needs a name.", nameof(consumerName));
        }

        string section = AspireSections.Consumer(consumerName);
        var settings = new KafkaProtobufConsumerSettings
        {
            ConnectionString = builder.Configuration.GetConnectionString(connectionName),
            DisableHealthChecks = AspireSections.Switch(builder.Configuration, section, nameof(KafkaProtobufConsumerSettings.DisableHealthChecks)),
            DisableTracing = AspireSections.Switch(builder.Configuration, section, nameof(KafkaProtobufConsumerSettings.DisableTracing)),
            DisableMetrics = AspireSections.Switch(builder.Configuration, section, nameof(KafkaProtobufConsumerSettings.DisableMetrics)),
        };
        configureSettings?.Invoke(settings);

        // Read now, so that a connection string that cannot be read fails the service at start-up, not at the first record.
        IReadOnlyList<KeyValuePair<string, string>> connection = KafkaConnectionString.Settings(
            AspireSections.ConnectionString(settings.ConnectionString, connectionName, nameof(KafkaProtobufConsumerSettings)), connectionName);
        KafkaProtobufConsumerBuilder<TKey, TValue> consumer = builder.Services.AddKafkaProtobufConsumer<TKey, TValue>(
            consumerName,
            AspireSections.Without(
                builder.Configuration,
                section,
                nameof(KafkaProtobufConsumerSettings.DisableHealthChecks),
                nameof(KafkaProtobufConsumerSettings.DisableTracing),
                nameof(KafkaProtobufConsumerSettings.DisableMetrics)),
            options =>
            {
                foreach (KeyValuePair<string, string> setting in connection)
                {
                    options.Consumer.Set(setting.Key, setting.Value);
                    options.CopyProducer?.Set(setting.Key, setting.Value);
                }

                options.Consumer.GroupId ??= consumerName;
                configureOptions?.Invoke(options);

                // Code that replaced the whole ConsumerConfig dropped the connection: what it left unset comes back.
                foreach (KeyValuePair<string, string> setting in connection.Where(s => options.Consumer.Get(s.Key) is null))
                {
                    options.Consumer.Set(setting.Key, setting.Value);
                }

                options.Consumer.GroupId ??= consumerName;
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
    /// <c>schema.registry.*</c> names), then the connection string's; with a health check that reads
    /// (<c>GET /schemas/types</c>) and never writes.
    /// </summary>
    /// <param name="builder">The service's host builder.</param>
    /// <param name="connectionName">The registry resource's connection name.</param>
    /// <exception cref="InvalidOperationException">No connection string, or a switch that is not true or false.</exception>
    /// <exception cref="ArgumentException">The connection string or a setting cannot be read.</exception>
    public static void AddKafkaProtobufRegistryClient(this IHostApplicationBuilder builder, string connectionName) =>
        AddRegistryClient(builder, connectionName, null, null, keyed: false);

    /// <summary>As <see cref="AddKafkaProtobufRegistryClient(IHostApplicationBuilder, string)"/>, with the settings changed by <paramref name="configureSettings"/> (as Aspire's integrations take them).</summary>
    /// <param name="builder">The service's host builder.</param>
    /// <param name="connectionName">The registry resource's connection name.</param>
    /// <param name="configureSettings">Changes the settings read from configuration (connection string, health check).</param>
    /// <exception cref="InvalidOperationException">No connection string, or a switch that is not true or false.</exception>
    /// <exception cref="ArgumentException">The connection string or a setting cannot be read.</exception>
    public static void AddKafkaProtobufRegistryClient(this IHostApplicationBuilder builder, string connectionName, Action<KafkaProtobufRegistrySettings> configureSettings) =>
        AddRegistryClient(builder, connectionName, configureSettings ?? throw new ArgumentNullException(nameof(configureSettings)), null, keyed: false);

    /// <summary>
    /// As <see cref="AddKafkaProtobufRegistryClient(IHostApplicationBuilder, string)"/>, with the settings changed by
    /// <paramref name="configureSettings"/> and the client's options by <paramref name="configureOptions"/>.
    /// </summary>
    /// <param name="builder">The service's host builder.</param>
    /// <param name="connectionName">The registry resource's connection name.</param>
    /// <param name="configureSettings">Changes the settings read from configuration, or null.</param>
    /// <param name="configureOptions">Sets or overrides the client's options, or null.</param>
    /// <exception cref="InvalidOperationException">No connection string, or a switch that is not true or false.</exception>
    /// <exception cref="ArgumentException">The connection string or a setting cannot be read.</exception>
    public static void AddKafkaProtobufRegistryClient(
        this IHostApplicationBuilder builder, string connectionName, Action<KafkaProtobufRegistrySettings>? configureSettings, Action<RegistryClientOptions>? configureOptions) =>
        AddRegistryClient(builder, connectionName, configureSettings, configureOptions, keyed: false);

    /// <summary>
    /// As <see cref="AddKafkaProtobufRegistryClient(IHostApplicationBuilder, string)"/>, registered with
    /// <paramref name="connectionName"/> as its service key (<c>[FromKeyedServices("registry")] RegistryClient</c>), for
    /// a service that talks to several registries.
    /// </summary>
    /// <param name="builder">The service's host builder.</param>
    /// <param name="connectionName">The registry resource's connection name, and the service key.</param>
    /// <exception cref="InvalidOperationException">No connection string, or a switch that is not true or false.</exception>
    /// <exception cref="ArgumentException">The connection string or a setting cannot be read.</exception>
    public static void AddKeyedKafkaProtobufRegistryClient(this IHostApplicationBuilder builder, string connectionName) =>
        AddRegistryClient(builder, connectionName, null, null, keyed: true);

    /// <summary>As <see cref="AddKeyedKafkaProtobufRegistryClient(IHostApplicationBuilder, string)"/>, with the settings changed by <paramref name="configureSettings"/> (as Aspire's integrations take them).</summary>
    /// <param name="builder">The service's host builder.</param>
    /// <param name="connectionName">The registry resource's connection name, and the service key.</param>
    /// <param name="configureSettings">Changes the settings read from configuration (connection string, health check).</param>
    /// <exception cref="InvalidOperationException">No connection string, or a switch that is not true or false.</exception>
    /// <exception cref="ArgumentException">The connection string or a setting cannot be read.</exception>
    public static void AddKeyedKafkaProtobufRegistryClient(this IHostApplicationBuilder builder, string connectionName, Action<KafkaProtobufRegistrySettings> configureSettings) =>
        AddRegistryClient(builder, connectionName, configureSettings ?? throw new ArgumentNullException(nameof(configureSettings)), null, keyed: true);

    /// <summary>As <see cref="AddKeyedKafkaProtobufRegistryClient(IHostApplicationBuilder, string)"/>, with settings and options changed.</summary>
    /// <param name="builder">The service's host builder.</param>
    /// <param name="connectionName">The registry resource's connection name, and the service key.</param>
    /// <param name="configureSettings">Changes the settings read from configuration, or null.</param>
    /// <param name="configureOptions">Sets or overrides the client's options, or null.</param>
    /// <exception cref="InvalidOperationException">No connection string, or a switch that is not true or false.</exception>
    /// <exception cref="ArgumentException">The connection string or a setting cannot be read.</exception>
    public static void AddKeyedKafkaProtobufRegistryClient(
        this IHostApplicationBuilder builder, string connectionName, Action<KafkaProtobufRegistrySettings>? configureSettings, Action<RegistryClientOptions>? configureOptions) =>
        AddRegistryClient(builder, connectionName, configureSettings, configureOptions, keyed: true);

    /// <summary>
    /// Adds a singleton <see cref="IProducer{TKey, TValue}"/> connected to the Kafka of <paramref name="connectionName"/>
    /// whose values are written by <see cref="RegistryProtobufSerializer{T}"/> (the schema registered on first use) with
    /// the registry client added by <c>AddKafkaProtobufRegistryClient</c> (or the keyed one
    /// <see cref="KafkaProtobufProducerOptions.RegistryConnectionName"/> names); keys by Confluent.Kafka's serializers. Options from
    /// <c>Aspire:KafkaProtobuf:Producers:{connectionName}</c>, then the connection string. Flushed when the host stops;
    /// a health check asks the brokers for metadata on its connections (nothing is written); librdkafka's log goes to
    /// <see cref="ILogger"/>.
    /// </summary>
    /// <typeparam name="TKey">The key type.</typeparam>
    /// <typeparam name="TValue">The generated message type of the values.</typeparam>
    /// <param name="builder">The service's host builder.</param>
    /// <param name="connectionName">The Kafka resource's connection name.</param>
    /// <exception cref="InvalidOperationException">No connection string, or a setting that cannot be read.</exception>
    /// <exception cref="ArgumentException">The connection string cannot be read.</exception>
    public static void AddKafkaProtobufProducer<TKey, TValue>(this IHostApplicationBuilder builder, string connectionName)
        where TValue : class, IMessage<TValue>, new() =>
        AddProducer<TKey, TValue>(builder, connectionName, null, null, null, keyed: false);

    /// <summary>As <see cref="AddKafkaProtobufProducer{TKey, TValue}(IHostApplicationBuilder, string)"/>, with the settings changed by <paramref name="configureSettings"/> (as Aspire's integrations take them).</summary>
    /// <typeparam name="TKey">The key type.</typeparam>
    /// <typeparam name="TValue">The generated message type of the values.</typeparam>
    /// <param name="builder">The service's host builder.</param>
    /// <param name="connectionName">The Kafka resource's connection name.</param>
    /// <param name="configureSettings">Changes the settings read from configuration (connection string, switches).</param>
    /// <exception cref="InvalidOperationException">No connection string, or a setting that cannot be read.</exception>
    /// <exception cref="ArgumentException">The connection string cannot be read.</exception>
    public static void AddKafkaProtobufProducer<TKey, TValue>(this IHostApplicationBuilder builder, string connectionName, Action<KafkaProtobufProducerSettings> configureSettings)
        where TValue : class, IMessage<TValue>, new() =>
        AddProducer<TKey, TValue>(builder, connectionName, configureSettings ?? throw new ArgumentNullException(nameof(configureSettings)), null, null, keyed: false);

    /// <summary>
    /// As <see cref="AddKafkaProtobufProducer{TKey, TValue}(IHostApplicationBuilder, string)"/>, with the settings, the
    /// options and the producer's builder (a key serializer, handlers) changed by what is given.
    /// </summary>
    /// <typeparam name="TKey">The key type.</typeparam>
    /// <typeparam name="TValue">The generated message type of the values.</typeparam>
    /// <param name="builder">The service's host builder.</param>
    /// <param name="connectionName">The Kafka resource's connection name.</param>
    /// <param name="configureSettings">Changes the settings read from configuration, or null.</param>
    /// <param name="configureOptions">Sets or overrides the options, or null.</param>
    /// <param name="configureBuilder">Changes the producer's builder before it is built, or null.</param>
    /// <exception cref="InvalidOperationException">No connection string, or a setting that cannot be read.</exception>
    /// <exception cref="ArgumentException">The connection string cannot be read.</exception>
    public static void AddKafkaProtobufProducer<TKey, TValue>(
        this IHostApplicationBuilder builder,
        string connectionName,
        Action<KafkaProtobufProducerSettings>? configureSettings,
        Action<KafkaProtobufProducerOptions>? configureOptions,
        Action<IServiceProvider, ProducerBuilder<TKey, TValue>>? configureBuilder)
        where TValue : class, IMessage<TValue>, new() =>
        AddProducer(builder, connectionName, configureSettings, configureOptions, configureBuilder, keyed: false);

    /// <summary>
    /// As <see cref="AddKafkaProtobufProducer{TKey, TValue}(IHostApplicationBuilder, string)"/>, registered with
    /// <paramref name="connectionName"/> as its service key, for a service that writes to several clusters.
    /// </summary>
    /// <typeparam name="TKey">The key type.</typeparam>
    /// <typeparam name="TValue">The generated message type of the values.</typeparam>
    /// <param name="builder">The service's host builder.</param>
    /// <param name="connectionName">The Kafka resource's connection name, and the service key.</param>
    /// <exception cref="InvalidOperationException">No connection string, or a setting that cannot be read.</exception>
    /// <exception cref="ArgumentException">The connection string cannot be read.</exception>
    public static void AddKeyedKafkaProtobufProducer<TKey, TValue>(this IHostApplicationBuilder builder, string connectionName)
        where TValue : class, IMessage<TValue>, new() =>
        AddProducer<TKey, TValue>(builder, connectionName, null, null, null, keyed: true);

    /// <summary>As <see cref="AddKeyedKafkaProtobufProducer{TKey, TValue}(IHostApplicationBuilder, string)"/>, with the settings changed by <paramref name="configureSettings"/> (as Aspire's integrations take them).</summary>
    /// <typeparam name="TKey">The key type.</typeparam>
    /// <typeparam name="TValue">The generated message type of the values.</typeparam>
    /// <param name="builder">The service's host builder.</param>
    /// <param name="connectionName">The Kafka resource's connection name, and the service key.</param>
    /// <param name="configureSettings">Changes the settings read from configuration (connection string, switches).</param>
    /// <exception cref="InvalidOperationException">No connection string, or a setting that cannot be read.</exception>
    /// <exception cref="ArgumentException">The connection string cannot be read.</exception>
    public static void AddKeyedKafkaProtobufProducer<TKey, TValue>(this IHostApplicationBuilder builder, string connectionName, Action<KafkaProtobufProducerSettings> configureSettings)
        where TValue : class, IMessage<TValue>, new() =>
        AddProducer<TKey, TValue>(builder, connectionName, configureSettings ?? throw new ArgumentNullException(nameof(configureSettings)), null, null, keyed: true);

    /// <summary>As <see cref="AddKeyedKafkaProtobufProducer{TKey, TValue}(IHostApplicationBuilder, string)"/>, with settings, options and the builder changed.</summary>
    /// <typeparam name="TKey">The key type.</typeparam>
    /// <typeparam name="TValue">The generated message type of the values.</typeparam>
    /// <param name="builder">The service's host builder.</param>
    /// <param name="connectionName">The Kafka resource's connection name, and the service key.</param>
    /// <param name="configureSettings">Changes the settings read from configuration, or null.</param>
    /// <param name="configureOptions">Sets or overrides the options, or null.</param>
    /// <param name="configureBuilder">Changes the producer's builder before it is built, or null.</param>
    /// <exception cref="InvalidOperationException">No connection string, or a setting that cannot be read.</exception>
    /// <exception cref="ArgumentException">The connection string cannot be read.</exception>
    public static void AddKeyedKafkaProtobufProducer<TKey, TValue>(
        this IHostApplicationBuilder builder,
        string connectionName,
        Action<KafkaProtobufProducerSettings>? configureSettings,
        Action<KafkaProtobufProducerOptions>? configureOptions,
        Action<IServiceProvider, ProducerBuilder<TKey, TValue>>? configureBuilder)
        where TValue : class, IMessage<TValue>, new() =>
        AddProducer(builder, connectionName, configureSettings, configureOptions, configureBuilder, keyed: true);

    private static void AddRegistryClient(
        IHostApplicationBuilder builder,
        string connectionName,
        Action<KafkaProtobufRegistrySettings>? configureSettings,
        Action<RegistryClientOptions>? configureOptions,
        bool keyed)
    {
        CheckConnection(builder, connectionName);
        string section = AspireSections.Registry(connectionName);
        var settings = new KafkaProtobufRegistrySettings
        {
            ConnectionString = builder.Configuration.GetConnectionString(connectionName),
            DisableHealthChecks = AspireSections.Switch(builder.Configuration, section, nameof(KafkaProtobufRegistrySettings.DisableHealthChecks)),
        };
        configureSettings?.Invoke(settings);
        IEnumerable<KeyValuePair<string, string?>> fromSection = builder.Configuration.GetSection(section)
            .GetChildren()
            .Where(s => s.Value is not null && !string.Equals(s.Key, nameof(KafkaProtobufRegistrySettings.DisableHealthChecks), StringComparison.OrdinalIgnoreCase))
            .Select(s => new KeyValuePair<string, string?>(
                s.Key.StartsWith("schema.registry.", StringComparison.Ordinal) ? s.Key : "schema.registry." + s.Key, s.Value));
        IReadOnlyList<KeyValuePair<string, string?>> fromConnection = RegistryConnectionString.Settings(
            AspireSections.ConnectionString(settings.ConnectionString, connectionName, nameof(KafkaProtobufRegistrySettings)), connectionName);

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
        Action<KafkaProtobufProducerSettings>? configureSettings,
        Action<KafkaProtobufProducerOptions>? configureOptions,
        Action<IServiceProvider, ProducerBuilder<TKey, TValue>>? configureBuilder,
        bool keyed)
        where TValue : class, IMessage<TValue>, new()
    {
        CheckConnection(builder, connectionName);
        string section = AspireSections.Producer(connectionName);
        var settings = new KafkaProtobufProducerSettings
        {
            ConnectionString = builder.Configuration.GetConnectionString(connectionName),
            DisableHealthChecks = AspireSections.Switch(builder.Configuration, section, nameof(KafkaProtobufProducerSettings.DisableHealthChecks)),
            DisableLogging = AspireSections.Switch(builder.Configuration, section, nameof(KafkaProtobufProducerSettings.DisableLogging)),
        };
        configureSettings?.Invoke(settings);
        var options = new KafkaProtobufProducerOptions();
        ProducerSection.Apply(builder.Configuration.GetSection(section), options);
        KafkaConnectionString.ApplyTo(options.Producer, AspireSections.ConnectionString(settings.ConnectionString, connectionName, nameof(KafkaProtobufProducerSettings)), connectionName);
        configureOptions?.Invoke(options);

        if (AddOnce(builder.Services, "producer-flush"))
        {
            builder.Services.AddSingleton<ProducerFlush>();
            builder.Services.AddHostedService(services => services.GetRequiredService<ProducerFlush>());
        }

        IProducer<TKey, TValue> Create(IServiceProvider services)
        {
            RegistryClient registry = options.RegistryConnectionName is null
                ? services.GetRequiredService<RegistryClient>()
                : services.GetRequiredKeyedService<RegistryClient>(options.RegistryConnectionName);
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
    }

    private static void CheckConnection(IHostApplicationBuilder builder, string connectionName)
    {
        if (builder is null)
        {
            throw new ArgumentNullException(nameof(builder));
        }

        if (string.IsNullOrWhiteSpace(connectionName))
        {
            throw new ArgumentException("A connection name is required.", nameof(connectionName));
        }
    }

    /// <summary>The packages' activity source and meter, with OpenTelemetry (the exporter is the app's: Aspire's service defaults add OTLP).</summary>
    private static void AddTelemetry(IHostApplicationBuilder builder, KafkaProtobufConsumerSettings settings)
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
