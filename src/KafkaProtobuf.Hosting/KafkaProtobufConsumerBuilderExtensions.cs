using System;
using Google.Protobuf;
using Google.Protobuf.Reflection;

namespace KafkaProtobuf.Hosting;

/// <summary>This package's deserializers for a hosted consumer's keys and values.</summary>
public static class KafkaProtobufConsumerBuilderExtensions
{
    /// <summary>Values of one generated type (<see cref="FramedProtobufDeserializer{T}"/>, default options).</summary>
    /// <typeparam name="TKey">The key type.</typeparam>
    /// <typeparam name="TValue">The generated message type.</typeparam>
    /// <param name="builder">The consumer's builder.</param>
    /// <returns>The builder.</returns>
    public static KafkaProtobufConsumerBuilder<TKey, TValue> WithProtobufValues<TKey, TValue>(
        this KafkaProtobufConsumerBuilder<TKey, TValue> builder)
        where TValue : class, IMessage<TValue>, new() =>
        Builder(builder).WithValueDeserializer(_ => new FramedProtobufDeserializer<TValue>());

    /// <summary>Values of one generated type (<see cref="FramedProtobufDeserializer{T}"/>) with the deserializer's options.</summary>
    /// <typeparam name="TKey">The key type.</typeparam>
    /// <typeparam name="TValue">The generated message type.</typeparam>
    /// <param name="builder">The consumer's builder.</param>
    /// <param name="options">The deserializer's options.</param>
    /// <returns>The builder.</returns>
    public static KafkaProtobufConsumerBuilder<TKey, TValue> WithProtobufValues<TKey, TValue>(
        this KafkaProtobufConsumerBuilder<TKey, TValue> builder, FramedDeserializerOptions options)
        where TValue : class, IMessage<TValue>, new() =>
        Builder(builder).WithValueDeserializer(_ => new FramedProtobufDeserializer<TValue>(options));

    /// <summary>
    /// Values of one generated type, each record checked by name in its writer's schema from a source the services
    /// provide (e.g. a <c>RegistryClient</c> registered as a singleton) to be written as <typeparamref name="TValue"/>; the
    /// deserializer's other options at their defaults.
    /// </summary>
    /// <typeparam name="TKey">The key type.</typeparam>
    /// <typeparam name="TValue">The value type.</typeparam>
    /// <param name="builder">The consumer's builder.</param>
    /// <param name="source">Gives the writer's schema source.</param>
    /// <returns>The builder.</returns>
    public static KafkaProtobufConsumerBuilder<TKey, TValue> WithProtobufValues<TKey, TValue>(
        this KafkaProtobufConsumerBuilder<TKey, TValue> builder, Func<IServiceProvider, ISchemaFileSource?> source)
        where TValue : class, IMessage<TValue>, new() =>
        WithProtobufValues(builder, source, null);

    /// <summary>
    /// Values of one generated type, each record checked by name in its writer's schema from a source the services
    /// provide (e.g. a <c>RegistryClient</c> registered as a singleton) to be written as <typeparamref name="TValue"/>
    /// (<see cref="FramedDeserializerOptions.VerifyWriterType"/>). While the source cannot answer, records are read again
    /// after a back-off, never dead-lettered.
    /// </summary>
    /// <typeparam name="TKey">The key type.</typeparam>
    /// <typeparam name="TValue">The generated message type.</typeparam>
    /// <param name="builder">The consumer's builder.</param>
    /// <param name="source">Gives the writer's schema source.</param>
    /// <param name="configure">Sets the deserializer's other options; optional.</param>
    /// <returns>The builder.</returns>
    public static KafkaProtobufConsumerBuilder<TKey, TValue> WithProtobufValues<TKey, TValue>(
        this KafkaProtobufConsumerBuilder<TKey, TValue> builder,
        Func<IServiceProvider, ISchemaFileSource?> source,
        Action<FramedDeserializerOptions>? configure)
        where TValue : class, IMessage<TValue>, new()
    {
        Source(source);
        return Builder(builder).WithValueDeserializer(services => new FramedProtobufDeserializer<TValue>(TypedOptions(
            services, source, configure)));
    }

    /// <summary>
    /// Values of several types (<see cref="MultiTypeProtobufDeserializer"/>): each record parsed as the type its path
    /// names.
    /// </summary>
    /// <typeparam name="TKey">The key type.</typeparam>
    /// <param name="builder">The consumer's builder.</param>
    /// <param name="files">The generated files whose message types are read.</param>
    /// <returns>The builder.</returns>
    public static KafkaProtobufConsumerBuilder<TKey, IMessage> WithProtobufValues<TKey>(
        this KafkaProtobufConsumerBuilder<TKey, IMessage> builder, params FileDescriptor[] files) =>
        Builder(builder).WithValueDeserializer(_ => new MultiTypeProtobufDeserializer(files, null));

    /// <summary>
    /// Values of several types, read by name in the writer's schema from a source the services provide (e.g. a
    /// <c>RegistryClient</c> registered as a singleton).
    /// </summary>
    /// <typeparam name="TKey">The key type.</typeparam>
    /// <param name="builder">The consumer's builder.</param>
    /// <param name="source">Gives the writer's schema source, or <see langword="null"/> for none.</param>
    /// <param name="files">The generated files whose message types are read.</param>
    /// <returns>The builder.</returns>
    public static KafkaProtobufConsumerBuilder<TKey, IMessage> WithProtobufValues<TKey>(
        this KafkaProtobufConsumerBuilder<TKey, IMessage> builder,
        Func<IServiceProvider, ISchemaFileSource?> source,
        params FileDescriptor[] files) =>
        WithProtobufValues(builder, source, null, files);

    /// <summary>
    /// Values of several types, read by name in the writer's schema from a source the services provide (e.g. a
    /// <c>RegistryClient</c> registered as a singleton), with the multi-type deserializer's options.
    /// </summary>
    /// <typeparam name="TKey">The key type.</typeparam>
    /// <param name="builder">The consumer's builder.</param>
    /// <param name="source">Gives the writer's schema source, or <see langword="null"/> for none.</param>
    /// <param name="configure">Sets the deserializer's other options; optional.</param>
    /// <param name="files">The generated files whose message types are read.</param>
    /// <returns>The builder.</returns>
    public static KafkaProtobufConsumerBuilder<TKey, IMessage> WithProtobufValues<TKey>(
        this KafkaProtobufConsumerBuilder<TKey, IMessage> builder,
        Func<IServiceProvider, ISchemaFileSource?> source,
        Action<MultiTypeDeserializerOptions>? configure,
        params FileDescriptor[] files)
    {
        Source(source);
        return Builder(builder).WithValueDeserializer(services => new MultiTypeProtobufDeserializer(
            files, MultiTypeOptions(services, source, configure)));
    }

    /// <summary>Keys of one generated type (<see cref="FramedProtobufDeserializer{T}"/>, default options).</summary>
    /// <typeparam name="TKey">The generated message type.</typeparam>
    /// <typeparam name="TValue">The value type.</typeparam>
    /// <param name="builder">The consumer's builder.</param>
    /// <returns>The builder.</returns>
    public static KafkaProtobufConsumerBuilder<TKey, TValue> WithProtobufKeys<TKey, TValue>(
        this KafkaProtobufConsumerBuilder<TKey, TValue> builder)
        where TKey : class, IMessage<TKey>, new() =>
        Builder(builder).WithKeyDeserializer(_ => new FramedProtobufDeserializer<TKey>());

    /// <summary>Keys of one generated type (<see cref="FramedProtobufDeserializer{T}"/>) with the deserializer's options.</summary>
    /// <typeparam name="TKey">The generated message type.</typeparam>
    /// <typeparam name="TValue">The value type.</typeparam>
    /// <param name="builder">The consumer's builder.</param>
    /// <param name="options">The deserializer's options.</param>
    /// <returns>The builder.</returns>
    public static KafkaProtobufConsumerBuilder<TKey, TValue> WithProtobufKeys<TKey, TValue>(
        this KafkaProtobufConsumerBuilder<TKey, TValue> builder, FramedDeserializerOptions options)
        where TKey : class, IMessage<TKey>, new() =>
        Builder(builder).WithKeyDeserializer(_ => new FramedProtobufDeserializer<TKey>(options));

    /// <summary>
    /// Keys of one generated type, each record checked by name in its writer's schema from a source the services
    /// provide (e.g. a <c>RegistryClient</c> registered as a singleton) to be written as <typeparamref name="TKey"/>; the
    /// deserializer's other options at their defaults.
    /// </summary>
    /// <typeparam name="TKey">The key type.</typeparam>
    /// <typeparam name="TValue">The value type.</typeparam>
    /// <param name="builder">The consumer's builder.</param>
    /// <param name="source">Gives the writer's schema source.</param>
    /// <returns>The builder.</returns>
    public static KafkaProtobufConsumerBuilder<TKey, TValue> WithProtobufKeys<TKey, TValue>(
        this KafkaProtobufConsumerBuilder<TKey, TValue> builder, Func<IServiceProvider, ISchemaFileSource?> source)
        where TKey : class, IMessage<TKey>, new() =>
        WithProtobufKeys(builder, source, null);

    /// <summary>
    /// Keys of one generated type, each checked by name in its writer's schema from a source the services provide (e.g.
    /// a <c>RegistryClient</c>; Confluent's serializers register keys under <c>{topic}-key</c>) to be written as
    /// <typeparamref name="TKey"/>. The schema id may be in the key's prefix or in the <c>__key_schema_id</c> header.
    /// </summary>
    /// <typeparam name="TKey">The generated message type.</typeparam>
    /// <typeparam name="TValue">The value type.</typeparam>
    /// <param name="builder">The consumer's builder.</param>
    /// <param name="source">Gives the writer's schema source.</param>
    /// <param name="configure">Sets the deserializer's other options; optional.</param>
    /// <returns>The builder.</returns>
    public static KafkaProtobufConsumerBuilder<TKey, TValue> WithProtobufKeys<TKey, TValue>(
        this KafkaProtobufConsumerBuilder<TKey, TValue> builder,
        Func<IServiceProvider, ISchemaFileSource?> source,
        Action<FramedDeserializerOptions>? configure)
        where TKey : class, IMessage<TKey>, new()
    {
        Source(source);
        return Builder(builder).WithKeyDeserializer(services => new FramedProtobufDeserializer<TKey>(TypedOptions(
            services, source, configure)));
    }

    /// <summary>
    /// Keys of several types, read by name in the writer's schema from a source the services provide (e.g. a
    /// <c>RegistryClient</c> registered as a singleton).
    /// </summary>
    /// <typeparam name="TValue">The value type.</typeparam>
    /// <param name="builder">The consumer's builder.</param>
    /// <param name="source">Gives the writer's schema source, or <see langword="null"/> for none.</param>
    /// <param name="files">The generated files whose message types are read.</param>
    /// <returns>The builder.</returns>
    public static KafkaProtobufConsumerBuilder<IMessage, TValue> WithProtobufKeys<TValue>(
        this KafkaProtobufConsumerBuilder<IMessage, TValue> builder,
        Func<IServiceProvider, ISchemaFileSource?> source,
        params FileDescriptor[] files) =>
        WithProtobufKeys(builder, source, null, files);

    /// <summary>Keys of several types, read by name in the writer's schema from a source the services provide.</summary>
    /// <typeparam name="TValue">The value type.</typeparam>
    /// <param name="builder">The consumer's builder.</param>
    /// <param name="source">Gives the writer's schema source, or <see langword="null"/> for none.</param>
    /// <param name="configure">Sets the deserializer's other options; optional.</param>
    /// <param name="files">The generated files whose message types are read.</param>
    /// <returns>The builder.</returns>
    public static KafkaProtobufConsumerBuilder<IMessage, TValue> WithProtobufKeys<TValue>(
        this KafkaProtobufConsumerBuilder<IMessage, TValue> builder,
        Func<IServiceProvider, ISchemaFileSource?> source,
        Action<MultiTypeDeserializerOptions>? configure,
        params FileDescriptor[] files)
    {
        Source(source);
        return Builder(builder).WithKeyDeserializer(services => new MultiTypeProtobufDeserializer(
            files, MultiTypeOptions(services, source, configure)));
    }

    /// <summary>Keys of several types (<see cref="MultiTypeProtobufDeserializer"/>).</summary>
    /// <typeparam name="TValue">The value type.</typeparam>
    /// <param name="builder">The consumer's builder.</param>
    /// <param name="files">The generated files whose message types are read.</param>
    /// <returns>The builder.</returns>
    public static KafkaProtobufConsumerBuilder<IMessage, TValue> WithProtobufKeys<TValue>(
        this KafkaProtobufConsumerBuilder<IMessage, TValue> builder, params FileDescriptor[] files) =>
        Builder(builder).WithKeyDeserializer(_ => new MultiTypeProtobufDeserializer(files, null));

    private static KafkaProtobufConsumerBuilder<TKey, TValue> Builder<TKey, TValue>(KafkaProtobufConsumerBuilder<TKey, TValue> builder) =>
        builder ?? throw new ArgumentNullException(nameof(builder));

    private static void Source(Func<IServiceProvider, ISchemaFileSource?> source)
    {
        if (source is null)
        {
            throw new ArgumentNullException(nameof(source));
        }
    }

    private static FramedDeserializerOptions TypedOptions(
        IServiceProvider services, Func<IServiceProvider, ISchemaFileSource?> source, Action<FramedDeserializerOptions>? configure)
    {
        var options = new FramedDeserializerOptions { VerifyWriterType = true };
        options.WriterSchemas.Source = source(services);
        configure?.Invoke(options);
        return options;
    }

    private static MultiTypeDeserializerOptions MultiTypeOptions(
        IServiceProvider services, Func<IServiceProvider, ISchemaFileSource?> source, Action<MultiTypeDeserializerOptions>? configure)
    {
        var options = new MultiTypeDeserializerOptions();
        options.WriterSchemas.Source = source(services);
        configure?.Invoke(options);
        return options;
    }
}
