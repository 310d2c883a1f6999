using System;
using Confluent.Kafka;
using Google.Protobuf;
using Google.Protobuf.Reflection;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>
/// One-line set-up on Confluent.Kafka's consumer builder of this package's deserializers reading each record's type by
/// name in its writer's schema from the registry (the registry client as their <see cref="WriterSchemaOptions.Source"/>).
/// </summary>
public static class RegistryConsumerBuilderExtensions
{
    /// <summary>
    /// Deserializes values of several types with a <see cref="MultiTypeProtobufDeserializer"/> that reads each record's
    /// path in its writer's file from the registry and matches the type by full name: every message type of
    /// <paramref name="files"/>, whatever order the writer declared them in.
    /// </summary>
    /// <typeparam name="TKey">The key type.</typeparam>
    /// <param name="builder">The consumer builder.</param>
    /// <param name="registry">The registry client.</param>
    /// <param name="files">The reader's generated files.</param>
    /// <returns><paramref name="builder"/>, for chaining.</returns>
    public static ConsumerBuilder<TKey, IMessage> SetProtobufValueDeserializer<TKey>(
        this ConsumerBuilder<TKey, IMessage> builder, RegistryClient registry, params FileDescriptor[] files) =>
        (builder ?? throw new ArgumentNullException(nameof(builder))).SetValueDeserializer(
            new MultiTypeProtobufDeserializer(files, new MultiTypeDeserializerOptions { WriterSchemas = { Source = Source(registry) } }));

    /// <summary>
    /// Deserializes values as <typeparamref name="TValue"/>, checking by name in the writer's schema from the registry
    /// that each record was written as <typeparamref name="TValue"/> (<see cref="FramedDeserializerOptions.VerifyWriterType"/>).
    /// </summary>
    /// <typeparam name="TKey">The key type.</typeparam>
    /// <typeparam name="TValue">The generated Protobuf message type of the values.</typeparam>
    /// <param name="builder">The consumer builder.</param>
    /// <param name="registry">The registry client.</param>
    /// <returns><paramref name="builder"/>, for chaining.</returns>
    public static ConsumerBuilder<TKey, TValue> SetProtobufValueDeserializer<TKey, TValue>(
        this ConsumerBuilder<TKey, TValue> builder, RegistryClient registry)
        where TValue : class, IMessage<TValue>, new() =>
        (builder ?? throw new ArgumentNullException(nameof(builder))).SetValueDeserializer(
            new FramedProtobufDeserializer<TValue>(new FramedDeserializerOptions { VerifyWriterType = true, WriterSchemas = { Source = Source(registry) } }));

    /// <summary>
    /// Deserializes keys of several types with a <see cref="MultiTypeProtobufDeserializer"/> that reads each key's path
    /// in its writer's file from the registry (Confluent's serializers register keys under <c>{topic}-key</c>) and
    /// matches the type by full name: every message type of <paramref name="files"/>. The schema id may be in the key's
    /// prefix or in the <c>__key_schema_id</c> header.
    /// </summary>
    /// <typeparam name="TValue">The value type.</typeparam>
    /// <param name="builder">The consumer builder.</param>
    /// <param name="registry">The registry client.</param>
    /// <param name="files">The reader's generated files.</param>
    /// <returns><paramref name="builder"/>, for chaining.</returns>
    public static ConsumerBuilder<IMessage, TValue> SetProtobufKeyDeserializer<TValue>(
        this ConsumerBuilder<IMessage, TValue> builder, RegistryClient registry, params FileDescriptor[] files) =>
        (builder ?? throw new ArgumentNullException(nameof(builder))).SetKeyDeserializer(
            new MultiTypeProtobufDeserializer(files, new MultiTypeDeserializerOptions { WriterSchemas = { Source = Source(registry) } }));

    /// <summary>
    /// Deserializes keys as <typeparamref name="TKey"/>, checking by name in the writer's schema from the registry that
    /// each key was written as <typeparamref name="TKey"/> (<see cref="FramedDeserializerOptions.VerifyWriterType"/>).
    /// The schema id may be in the key's prefix or in the <c>__key_schema_id</c> header.
    /// </summary>
    /// <typeparam name="TKey">The generated Protobuf message type of the keys.</typeparam>
    /// <typeparam name="TValue">The value type.</typeparam>
    /// <param name="builder">The consumer builder.</param>
    /// <param name="registry">The registry client.</param>
    /// <returns><paramref name="builder"/>, for chaining.</returns>
    public static ConsumerBuilder<TKey, TValue> SetProtobufKeyDeserializer<TKey, TValue>(
        this ConsumerBuilder<TKey, TValue> builder, RegistryClient registry)
        where TKey : class, IMessage<TKey>, new() =>
        (builder ?? throw new ArgumentNullException(nameof(builder))).SetKeyDeserializer(
            new FramedProtobufDeserializer<TKey>(new FramedDeserializerOptions { VerifyWriterType = true, WriterSchemas = { Source = Source(registry) } }));

    private static RegistryClient Source(RegistryClient registry) => registry ?? throw new ArgumentNullException(nameof(registry));
}
