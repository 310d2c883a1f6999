using System;
using Confluent.Kafka;
using Google.Protobuf;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>One-line set-up of serializers that register their schema, on Confluent.Kafka's producer builder.</summary>
public static class RegistryProducerBuilderExtensions
{
    /// <summary>Serializes values with a <see cref="RegistryProtobufSerializer{T}"/> that registers their schema, with Confluent's defaults.</summary>
    /// <typeparam name="TKey">The key type.</typeparam>
    /// <typeparam name="TValue">The generated Protobuf message type of the values.</typeparam>
    /// <param name="builder">The producer builder.</param>
    /// <param name="registry">The registry client.</param>
    /// <returns><paramref name="builder"/>, for chaining.</returns>
    public static ProducerBuilder<TKey, TValue> SetProtobufValueSerializer<TKey, TValue>(this ProducerBuilder<TKey, TValue> builder, RegistryClient registry)
        where TValue : class, IMessage<TValue>, new() =>
        SetProtobufValueSerializer(builder, registry, null);

    /// <summary>Serializes keys with a <see cref="RegistryProtobufSerializer{T}"/> that registers their schema, with Confluent's defaults.</summary>
    /// <typeparam name="TKey">The generated Protobuf message type of the keys.</typeparam>
    /// <typeparam name="TValue">The value type.</typeparam>
    /// <param name="builder">The producer builder.</param>
    /// <param name="registry">The registry client.</param>
    /// <returns><paramref name="builder"/>, for chaining.</returns>
    public static ProducerBuilder<TKey, TValue> SetProtobufKeySerializer<TKey, TValue>(this ProducerBuilder<TKey, TValue> builder, RegistryClient registry)
        where TKey : class, IMessage<TKey>, new() =>
        SetProtobufKeySerializer(builder, registry, null);

    /// <summary>Serializes values with a <see cref="RegistryProtobufSerializer{T}"/> that registers their schema.</summary>
    /// <typeparam name="TKey">The key type.</typeparam>
    /// <typeparam name="TValue">The generated Protobuf message type of the values.</typeparam>
    /// <param name="builder">The producer builder.</param>
    /// <param name="registry">The registry client.</param>
    /// <param name="options">The options, or <see langword="null"/> for Confluent's defaults.</param>
    /// <returns><paramref name="builder"/>, for chaining.</returns>
    public static ProducerBuilder<TKey, TValue> SetProtobufValueSerializer<TKey, TValue>(
        this ProducerBuilder<TKey, TValue> builder, RegistryClient registry, RegistrySerializerOptions? options)
        where TValue : class, IMessage<TValue>, new() =>
        (builder ?? throw new ArgumentNullException(nameof(builder))).SetValueSerializer((ISerializer<TValue>)new RegistryProtobufSerializer<TValue>(registry, options));

    /// <summary>Serializes keys with a <see cref="RegistryProtobufSerializer{T}"/> that registers their schema.</summary>
    /// <typeparam name="TKey">The generated Protobuf message type of the keys.</typeparam>
    /// <typeparam name="TValue">The value type.</typeparam>
    /// <param name="builder">The producer builder.</param>
    /// <param name="registry">The registry client.</param>
    /// <param name="options">The options, or <see langword="null"/> for Confluent's defaults.</param>
    /// <returns><paramref name="builder"/>, for chaining.</returns>
    public static ProducerBuilder<TKey, TValue> SetProtobufKeySerializer<TKey, TValue>(
        this ProducerBuilder<TKey, TValue> builder, RegistryClient registry, RegistrySerializerOptions? options)
        where TKey : class, IMessage<TKey>, new() =>
        (builder ?? throw new ArgumentNullException(nameof(builder))).SetKeySerializer((ISerializer<TKey>)new RegistryProtobufSerializer<TKey>(registry, options));
}
