using System;
using System.Collections.Generic;
using System.Diagnostics.CodeAnalysis;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;

namespace KafkaProtobuf.Hosting;

/// <summary>
/// Completes a hosted consumer's registration: its key and value deserializers and its handler. Returned by
/// <see cref="KafkaProtobufServiceCollectionExtensions.AddKafkaProtobufConsumer{TKey, TValue}(
/// IServiceCollection, string, Action{KafkaProtobufConsumerOptions})"/>;
/// the protobuf deserializers come from <see cref="KafkaProtobufConsumerBuilderExtensions"/>.
/// </summary>
/// <typeparam name="TKey">The key type.</typeparam>
/// <typeparam name="TValue">The value type.</typeparam>
public sealed class KafkaProtobufConsumerBuilder<TKey, TValue>
{
    private readonly ConsumerRegistration<TKey, TValue> _registration;

    internal KafkaProtobufConsumerBuilder(IServiceCollection services, ConsumerRegistration<TKey, TValue> registration)
    {
        Services = services;
        _registration = registration;
    }

    /// <summary>The consumer's name: in logs, metrics and health data.</summary>
    public string Name => _registration.Name;

    /// <summary>The service collection the consumer is registered in.</summary>
    public IServiceCollection Services { get; }

    /// <summary>
    /// The key deserializer; without one, Confluent.Kafka's for built-in key types (string, byte[], Ignore, Null,
    /// numbers).
    /// </summary>
    /// <param name="factory">Creates it, once, when the consumer starts.</param>
    /// <returns>This builder.</returns>
    public KafkaProtobufConsumerBuilder<TKey, TValue> WithKeyDeserializer(Func<IServiceProvider, IDeserializer<TKey>> factory)
    {
        _registration.KeyDeserializer = factory ?? throw new ArgumentNullException(nameof(factory));
        return this;
    }

    /// <summary>The value deserializer; without one, Confluent.Kafka's for built-in value types.</summary>
    /// <param name="factory">Creates it, once, when the consumer starts.</param>
    /// <returns>This builder.</returns>
    public KafkaProtobufConsumerBuilder<TKey, TValue> WithValueDeserializer(Func<IServiceProvider, IDeserializer<TValue>> factory)
    {
        _registration.ValueDeserializer = factory ?? throw new ArgumentNullException(nameof(factory));
        return this;
    }

    /// <summary>Handles each record with a delegate (no service scope is created). Replaces a batch handler set before.</summary>
    /// <param name="handler">The handler; see <see cref="IRecordHandler{TKey, TValue}.HandleAsync"/>.</param>
    /// <returns>This builder.</returns>
    public KafkaProtobufConsumerBuilder<TKey, TValue> Handle(
        Func<ConsumeResult<TKey, TValue>, CancellationToken, Task> handler)
    {
        if (handler is null)
        {
            throw new ArgumentNullException(nameof(handler));
        }

        _registration.HandleRecords((_, record, token) => handler(record, token), needsScope: false);
        return this;
    }

    /// <summary>Handles each record with a delegate given the services of a new scope per record.</summary>
    /// <param name="handler">The handler: the scope's services, the record, the shutdown token.</param>
    /// <returns>This builder.</returns>
    public KafkaProtobufConsumerBuilder<TKey, TValue> Handle(
        Func<IServiceProvider, ConsumeResult<TKey, TValue>, CancellationToken, Task> handler)
    {
        _registration.HandleRecords(handler ?? throw new ArgumentNullException(nameof(handler)), needsScope: true);
        return this;
    }

    /// <summary>
    /// Handles each record with <typeparamref name="THandler"/>, resolved in a new scope per record (registered as
    /// scoped if it is not yet).
    /// </summary>
    /// <typeparam name="THandler">The handler type.</typeparam>
    /// <returns>This builder.</returns>
    public KafkaProtobufConsumerBuilder<TKey, TValue> HandleWith<
        [DynamicallyAccessedMembers(DynamicallyAccessedMemberTypes.PublicConstructors)] THandler>()
        where THandler : class, IRecordHandler<TKey, TValue>
    {
        Services.TryAddScoped<THandler>();
        _registration.HandleRecords(
            (services, record, token) => services.GetRequiredService<THandler>().HandleAsync(record, token), needsScope: true);
        return this;
    }

    /// <summary>
    /// Handles records a batch at a time with a delegate (no service scope is created), batches made as
    /// <see cref="KafkaProtobufConsumerOptions.Batches"/> says. Replaces a record handler set before.
    /// </summary>
    /// <param name="handler">The batch handler; see <see cref="IBatchHandler{TKey, TValue}.HandleAsync"/>.</param>
    /// <returns>This builder.</returns>
    public KafkaProtobufConsumerBuilder<TKey, TValue> HandleBatch(
        Func<IReadOnlyList<ConsumeResult<TKey, TValue>>, CancellationToken, Task> handler)
    {
        if (handler is null)
        {
            throw new ArgumentNullException(nameof(handler));
        }

        _registration.HandleBatches((_, records, token) => handler(records, token), needsScope: false);
        return this;
    }

    /// <summary>Handles records a batch at a time with a delegate given the services of a new scope per batch.</summary>
    /// <param name="handler">The batch handler: the scope's services, the records, the shutdown token.</param>
    /// <returns>This builder.</returns>
    public KafkaProtobufConsumerBuilder<TKey, TValue> HandleBatch(
        Func<IServiceProvider, IReadOnlyList<ConsumeResult<TKey, TValue>>, CancellationToken, Task> handler)
    {
        _registration.HandleBatches(handler ?? throw new ArgumentNullException(nameof(handler)), needsScope: true);
        return this;
    }

    /// <summary>
    /// Handles records a batch at a time with <typeparamref name="THandler"/>, resolved in a new scope per batch
    /// (registered as scoped if it is not yet).
    /// </summary>
    /// <typeparam name="THandler">The batch handler type.</typeparam>
    /// <returns>This builder.</returns>
    public KafkaProtobufConsumerBuilder<TKey, TValue> HandleBatchWith<
        [DynamicallyAccessedMembers(DynamicallyAccessedMemberTypes.PublicConstructors)] THandler>()
        where THandler : class, IBatchHandler<TKey, TValue>
    {
        Services.TryAddScoped<THandler>();
        _registration.HandleBatches(
            (services, records, token) => services.GetRequiredService<THandler>().HandleAsync(records, token), needsScope: true);
        return this;
    }
}
