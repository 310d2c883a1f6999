using System;
using Confluent.Kafka;
using Google.Protobuf;

namespace KafkaProtobuf;

/// <summary>One-line set-up of <see cref="FramedProtobufSerializer{T}"/> on a Confluent.Kafka <see cref="ProducerBuilder{TKey, TValue}"/>.</summary>
public static class ProducerBuilderExtensions
{
    /// <summary>Serializes values with a <see cref="FramedProtobufSerializer{T}"/> writing <paramref name="schemaId"/> in the prefix.</summary>
    /// <typeparam name="TKey">The key type.</typeparam>
    /// <typeparam name="TValue">The generated Protobuf message type of the values.</typeparam>
    /// <param name="builder">The producer builder.</param>
    /// <param name="schemaId">The registered schema's id or GUID.</param>
    /// <returns><paramref name="builder"/>, for chaining.</returns>
    /// <exception cref="InvalidOperationException">The builder already has a value serializer (Confluent.Kafka's rule).</exception>
    public static ProducerBuilder<TKey, TValue> SetProtobufValueSerializer<TKey, TValue>(this ProducerBuilder<TKey, TValue> builder, SchemaIdentifier schemaId)
        where TValue : class, IMessage<TValue>, new() =>
        SetProtobufValueSerializer(builder, schemaId, null);

    /// <summary>Serializes values with a <see cref="FramedProtobufSerializer{T}"/> configured by <paramref name="options"/>.</summary>
    /// <typeparam name="TKey">The key type.</typeparam>
    /// <typeparam name="TValue">The generated Protobuf message type of the values.</typeparam>
    /// <param name="builder">The producer builder.</param>
    /// <param name="schemaId">The registered schema's id or GUID.</param>
    /// <param name="options">The serializer options, or <see langword="null"/> for the defaults.</param>
    /// <returns><paramref name="builder"/>, for chaining.</returns>
    /// <exception cref="InvalidOperationException">The builder already has a value serializer (Confluent.Kafka's rule).</exception>
    public static ProducerBuilder<TKey, TValue> SetProtobufValueSerializer<TKey, TValue>(
        this ProducerBuilder<TKey, TValue> builder, SchemaIdentifier schemaId, FramedSerializerOptions? options)
        where TValue : class, IMessage<TValue>, new()
    {
        if (builder is null)
        {
            throw new ArgumentNullException(nameof(builder));
        }

        return builder.SetValueSerializer((ISerializer<TValue>)new FramedProtobufSerializer<TValue>(schemaId, options));
    }

    /// <summary>Serializes keys with a <see cref="FramedProtobufSerializer{T}"/> writing <paramref name="schemaId"/> in the prefix.</summary>
    /// <typeparam name="TKey">The generated Protobuf message type of the keys.</typeparam>
    /// <typeparam name="TValue">The value type.</typeparam>
    /// <param name="builder">The producer builder.</param>
    /// <param name="schemaId">The registered schema's id or GUID.</param>
    /// <returns><paramref name="builder"/>, for chaining.</returns>
    /// <exception cref="InvalidOperationException">The builder already has a key serializer (Confluent.Kafka's rule).</exception>
    public static ProducerBuilder<TKey, TValue> SetProtobufKeySerializer<TKey, TValue>(this ProducerBuilder<TKey, TValue> builder, SchemaIdentifier schemaId)
        where TKey : class, IMessage<TKey>, new() =>
        SetProtobufKeySerializer(builder, schemaId, null);

    /// <summary>Serializes keys with a <see cref="FramedProtobufSerializer{T}"/> configured by <paramref name="options"/>.</summary>
    /// <typeparam name="TKey">The generated Protobuf message type of the keys.</typeparam>
    /// <typeparam name="TValue">The value type.</typeparam>
    /// <param name="builder">The producer builder.</param>
    /// <param name="schemaId">The registered schema's id or GUID.</param>
    /// <param name="options">The serializer options, or <see langword="null"/> for the defaults.</param>
    /// <returns><paramref name="builder"/>, for chaining.</returns>
    /// <exception cref="InvalidOperationException">The builder already has a key serializer (Confluent.Kafka's rule).</exception>
    public static ProducerBuilder<TKey, TValue> SetProtobufKeySerializer<TKey, TValue>(
        this ProducerBuilder<TKey, TValue> builder, SchemaIdentifier schemaId, FramedSerializerOptions? options)
        where TKey : class, IMessage<TKey>, new()
    {
        if (builder is null)
        {
            throw new ArgumentNullException(nameof(builder));
        }

        return builder.SetKeySerializer((ISerializer<TKey>)new FramedProtobufSerializer<TKey>(schemaId, options));
    }
}
