using System;
using Confluent.Kafka;
using Google.Protobuf;

namespace KafkaProtobuf;

/// <summary>One-line set-up of <see cref="FramedProtobufDeserializer{T}"/> on a Confluent.Kafka <see cref="ConsumerBuilder{TKey, TValue}"/>.</summary>
public static class ConsumerBuilderExtensions
{
    /// <summary>Deserializes values with a <see cref="FramedProtobufDeserializer{T}"/> for the current format.</summary>
    /// <typeparam name="TKey">The key type.</typeparam>
    /// <typeparam name="TValue">The generated Protobuf message type of the values.</typeparam>
    /// <param name="builder">The consumer builder.</param>
    /// <returns><paramref name="builder"/>, for chaining.</returns>
    /// <exception cref="InvalidOperationException">The builder already has a value deserializer (Confluent.Kafka's rule).</exception>
    public static ConsumerBuilder<TKey, TValue> SetProtobufValueDeserializer<TKey, TValue>(this ConsumerBuilder<TKey, TValue> builder)
        where TValue : class, IMessage<TValue>, new() =>
        SetProtobufValueDeserializer(builder, null);

    /// <summary>Deserializes values with a <see cref="FramedProtobufDeserializer{T}"/> configured by <paramref name="options"/>.</summary>
    /// <typeparam name="TKey">The key type.</typeparam>
    /// <typeparam name="TValue">The generated Protobuf message type of the values.</typeparam>
    /// <param name="builder">The consumer builder.</param>
    /// <param name="options">The deserializer options, or <see langword="null"/> for the defaults.</param>
    /// <returns><paramref name="builder"/>, for chaining.</returns>
    /// <exception cref="InvalidOperationException">The builder already has a value deserializer (Confluent.Kafka's rule).</exception>
    public static ConsumerBuilder<TKey, TValue> SetProtobufValueDeserializer<TKey, TValue>(
        this ConsumerBuilder<TKey, TValue> builder, FramedDeserializerOptions? options)
        where TValue : class, IMessage<TValue>, new()
    {
        if (builder is null)
        {
            throw new ArgumentNullException(nameof(builder));
        }

        return builder.SetValueDeserializer(new FramedProtobufDeserializer<TValue>(options));
    }

    /// <summary>Deserializes keys with a <see cref="FramedProtobufDeserializer{T}"/> for the current format.</summary>
    /// <typeparam name="TKey">The generated Protobuf message type of the keys.</typeparam>
    /// <typeparam name="TValue">The value type.</typeparam>
    /// <param name="builder">The consumer builder.</param>
    /// <returns><paramref name="builder"/>, for chaining.</returns>
    /// <exception cref="InvalidOperationException">The builder already has a key deserializer (Confluent.Kafka's rule).</exception>
    public static ConsumerBuilder<TKey, TValue> SetProtobufKeyDeserializer<TKey, TValue>(this ConsumerBuilder<TKey, TValue> builder)
        where TKey : class, IMessage<TKey>, new() =>
        SetProtobufKeyDeserializer(builder, null);

    /// <summary>Deserializes keys with a <see cref="FramedProtobufDeserializer{T}"/> configured by <paramref name="options"/>.</summary>
    /// <typeparam name="TKey">The generated Protobuf message type of the keys.</typeparam>
    /// <typeparam name="TValue">The value type.</typeparam>
    /// <param name="builder">The consumer builder.</param>
    /// <param name="options">The deserializer options, or <see langword="null"/> for the defaults.</param>
    /// <returns><paramref name="builder"/>, for chaining.</returns>
    /// <exception cref="InvalidOperationException">The builder already has a key deserializer (Confluent.Kafka's rule).</exception>
    public static ConsumerBuilder<TKey, TValue> SetProtobufKeyDeserializer<TKey, TValue>(
        this ConsumerBuilder<TKey, TValue> builder, FramedDeserializerOptions? options)
        where TKey : class, IMessage<TKey>, new()
    {
        if (builder is null)
        {
            throw new ArgumentNullException(nameof(builder));
        }

        return builder.SetKeyDeserializer(new FramedProtobufDeserializer<TKey>(options));
    }
}
