using System;
using KafkaProtobuf.Hosting.Health;
using KafkaProtobuf.Hosting.Service;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Hosting;

namespace KafkaProtobuf.Hosting;

/// <summary>Registers hosted consumers: the recommended consume loop, run by the host.</summary>
public static class KafkaProtobufServiceCollectionExtensions
{
    /// <summary>
    /// Registers a consumer the host runs from start to shutdown. Complete it with the returned builder: deserializers
    /// (<see cref="KafkaProtobufConsumerBuilderExtensions"/>) and a handler.
    /// </summary>
    /// <typeparam name="TKey">The key type.</typeparam>
    /// <typeparam name="TValue">The value type: a generated message type, or <see cref="Google.Protobuf.IMessage"/> for
    /// several.</typeparam>
    /// <param name="services">The services.</param>
    /// <param name="name">The consumer's name, unique among them: in logs, metrics and health data.</param>
    /// <param name="configure">Sets the options (run when the host starts).</param>
    /// <returns>The builder.</returns>
    /// <exception cref="ArgumentException">The name is empty or already taken.</exception>
    public static KafkaProtobufConsumerBuilder<TKey, TValue> AddKafkaProtobufConsumer<TKey, TValue>(
        this IServiceCollection services, string name, Action<KafkaProtobufConsumerOptions> configure)
    {
        if (configure is null)
        {
            throw new ArgumentNullException(nameof(configure));
        }

        KafkaProtobufConsumerBuilder<TKey, TValue> builder = Register<TKey, TValue>(
            services, name, out ConsumerRegistration<TKey, TValue> registration);
        registration.Configure.Add((_, options) => configure(options));
        return builder;
    }

    /// <summary>
    /// Registers a consumer the host runs from start to shutdown, its options read from a configuration section (see
    /// docs/hosting.md for the keys), then <paramref name="configure"/>.
    /// </summary>
    /// <typeparam name="TKey">The key type.</typeparam>
    /// <typeparam name="TValue">The value type: a generated message type, or <see cref="Google.Protobuf.IMessage"/> for
    /// several.</typeparam>
    /// <param name="services">The services.</param>
    /// <param name="name">The consumer's name, unique among them.</param>
    /// <param name="configuration">The section, e.g. <c>configuration.GetSection("Kafka:Orders")</c>.</param>
    /// <param name="configure">Sets or overrides options after the section is read; optional.</param>
    /// <returns>The builder.</returns>
    /// <exception cref="ArgumentException">The name is empty or already taken.</exception>
    public static KafkaProtobufConsumerBuilder<TKey, TValue> AddKafkaProtobufConsumer<TKey, TValue>(
        this IServiceCollection services, string name, IConfiguration configuration, Action<KafkaProtobufConsumerOptions>? configure = null)
    {
        if (configuration is null)
        {
            throw new ArgumentNullException(nameof(configuration));
        }

        KafkaProtobufConsumerBuilder<TKey, TValue> builder = Register<TKey, TValue>(
            services, name, out ConsumerRegistration<TKey, TValue> registration);
        registration.Configure.Add((_, options) => ConsumerConfiguration.Apply(configuration, options));
        if (configure is not null)
        {
            registration.Configure.Add((_, options) => configure(options));
        }

        return builder;
    }

    private static KafkaProtobufConsumerBuilder<TKey, TValue> Register<TKey, TValue>(
        IServiceCollection services, string name, out ConsumerRegistration<TKey, TValue> registration)
    {
        if (services is null)
        {
            throw new ArgumentNullException(nameof(services));
        }

        if (string.IsNullOrWhiteSpace(name))
        {
            throw new ArgumentException("A consumer needs a name.", nameof(name));
        }

        ConsumerNames names = ConsumerNames.In(services);
        if (!names.Add(name))
        {
            throw new ArgumentException("A KafkaProtobuf consumer named '" + name + "' is already registered.", nameof(name));
        }

        services.TryAddSingleton<KafkaProtobufConsumerStates>();
        services.TryAddSingleton(
            provider => new KafkaProtobufConsumerOperations(provider.GetRequiredService<KafkaProtobufConsumerStates>()));
        var created = new ConsumerRegistration<TKey, TValue>(name);
        registration = created;
        services.AddSingleton<IHostedService>(provider => new KafkaProtobufConsumerService<TKey, TValue>(created, provider));
        return new KafkaProtobufConsumerBuilder<TKey, TValue>(services, created);
    }
}
