using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf.Resolution;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>
/// Serializes <typeparamref name="T"/> with Schema Registry framing, registering its .proto file on the first record
/// of each subject, as Confluent's <c>ProtobufSerializer&lt;T&gt;</c> does: the file's serialized descriptor in
/// base64, each import registered first as a reference under its import path (well-known types skipped by default),
/// the id (or, in header placement, the GUID) from the registry's answer. The output is byte-identical to Confluent's
/// serializer for the same registry answers; after the first record of a subject it costs what
/// <see cref="FramedProtobufSerializer{T}"/> costs.
/// </summary>
/// <remarks>
/// The first record of a subject waits for the registry (bounded by the client's timeout and retries); a failure is
/// thrown as <see cref="SchemaRegistryRequestException"/> (the producer wraps it) and tried again on the next record.
/// <see cref="WarmUpAsync"/> registers ahead of time. Thread-safe.
/// </remarks>
/// <typeparam name="T">The generated Protobuf message type.</typeparam>
public sealed class RegistryProtobufSerializer<T> : ISerializer<T>, IAsyncSerializer<T>
    where T : class, IMessage<T>, new()
{
    private static readonly MessageDescriptor Descriptor = new T().Descriptor;

    private readonly RegistryClient _client;
    private readonly RegistrySerializerOptions _options;
    private readonly ProtobufSchemaRegistrar _registrar;
    private readonly ConcurrentDictionary<Target, Task<FramedProtobufSerializer<T>>> _byTarget = new();

    // The last target served: most producers write one topic, so a reference comparison finds the framing.
    private volatile Resolved? _last;

    /// <summary>Creates a serializer with Confluent's defaults.</summary>
    /// <param name="client">The registry client.</param>
    public RegistryProtobufSerializer(RegistryClient client)
        : this(client, null)
    {
    }

    /// <summary>Creates a serializer.</summary>
    /// <param name="client">The registry client.</param>
    /// <param name="options">The options, or <see langword="null"/> for Confluent's defaults.</param>
    /// <exception cref="ArgumentException">Both <see cref="RegistrySerializerOptions.UseLatestVersion"/> and <see cref="RegistrySerializerOptions.AutoRegisterSchemas"/> are on.</exception>
    /// <exception cref="ArgumentOutOfRangeException">An option is not a defined value, or the order is <see cref="MessageIndexOrder.EitherByWriterSchema"/> (readers only).</exception>
    public RegistryProtobufSerializer(RegistryClient client, RegistrySerializerOptions? options)
    {
        _client = client ?? throw new ArgumentNullException(nameof(client));
        options ??= new RegistrySerializerOptions();
        new OptionProblems(nameof(RegistrySerializerOptions))
            .Refuse(options.UseLatestVersion && options.AutoRegisterSchemas, "UseLatestVersion writes with a registered version: turn AutoRegisterSchemas off (as Confluent's serializer requires).")
            .RequireOneOf(options.SubjectNaming, nameof(options.SubjectNaming), SubjectNaming.Topic, SubjectNaming.Record, SubjectNaming.TopicRecord)
            .RequireOneOf(options.SchemaIdPlacement, nameof(options.SchemaIdPlacement), SchemaIdPlacement.Prefix, SchemaIdPlacement.Header)
            .RequireOneOf(options.MessageIndexEncoding, nameof(options.MessageIndexEncoding), MessageIndexEncoding.ZigZag, MessageIndexEncoding.LegacyUnsigned)
            .RequireOneOf(options.MessageIndexOrder, nameof(options.MessageIndexOrder), MessageIndexOrder.RootFirst, MessageIndexOrder.InnermostFirst) // EitherByWriterSchema is for readers
            .ThrowIfAny(nameof(options));

        _options = new RegistrySerializerOptions
        {
            SubjectNaming = options.SubjectNaming,
            AutoRegisterSchemas = options.AutoRegisterSchemas,
            UseLatestVersion = options.UseLatestVersion,
            NormalizeSchemas = options.NormalizeSchemas,
            SkipKnownTypes = options.SkipKnownTypes,
            SchemaIdPlacement = options.SchemaIdPlacement,
            MessageIndexEncoding = options.MessageIndexEncoding,
            MessageIndexOrder = options.MessageIndexOrder,
        };
        _registrar = new ProtobufSchemaRegistrar(client, _options);
    }

    /// <summary>The subject a record of <paramref name="topic"/> is registered under.</summary>
    /// <param name="topic">The topic.</param>
    /// <param name="component">Key or value.</param>
    /// <returns>The subject, e.g. <c>orders-value</c>.</returns>
    public string SubjectFor(string topic, MessageComponentType component) =>
        SubjectNames.Of(_options.SubjectNaming, topic ?? string.Empty, component, Descriptor.FullName);

    /// <summary>Serializes a key or value; the first record of a subject waits for the registry.</summary>
    /// <param name="data">The message, or <see langword="null"/> for a tombstone.</param>
    /// <param name="context">The component, topic and headers.</param>
    /// <returns>The record bytes, or <see langword="null"/>.</returns>
    /// <exception cref="SchemaRegistryRequestException">Registering or looking up the schema failed.</exception>
    public byte[]? Serialize(T? data, SerializationContext context)
    {
        if (data is null)
        {
            return null;
        }

        Resolved? last = _last;
        if (last is not null && ReferenceEquals(last.Topic, context.Topic) && last.Component == context.Component)
        {
            return last.Framing.Serialize(data, context);
        }

        return SerializeWithNewTarget(data, context);
    }

    /// <summary>
    /// The slow path, in its own method: the lambda's closure would otherwise be allocated on entry to
    /// <see cref="Serialize"/>, for every record.
    /// </summary>
    private byte[]? SerializeWithNewTarget(T data, SerializationContext context)
    {
        Task<FramedProtobufSerializer<T>> pending = FramingFor(context.Topic, context.Component);
        FramedProtobufSerializer<T> framing = pending.IsCompleted ? pending.GetAwaiter().GetResult() : SyncOverAsync.Wait(() => pending);
        _last = new Resolved(context.Topic, context.Component, framing);
        return framing.Serialize(data, context);
    }

    /// <inheritdoc cref="Serialize"/>
    byte[] ISerializer<T>.Serialize(T data, SerializationContext context) => Serialize(data, context)!;

    /// <summary>Serializes a key or value; the first record of a subject awaits the registry.</summary>
    /// <param name="data">The message, or <see langword="null"/> for a tombstone.</param>
    /// <param name="context">The component, topic and headers.</param>
    /// <returns>The record bytes, or <see langword="null"/>.</returns>
    public async Task<byte[]?> SerializeAsync(T? data, SerializationContext context)
    {
        if (data is null)
        {
            return null;
        }

        FramedProtobufSerializer<T> framing = await FramingFor(context.Topic, context.Component).ConfigureAwait(false);
        return framing.Serialize(data, context);
    }

    /// <inheritdoc cref="SerializeAsync"/>
    async Task<byte[]> IAsyncSerializer<T>.SerializeAsync(T data, SerializationContext context) => (await SerializeAsync(data, context).ConfigureAwait(false))!;

    /// <summary>Registers (or looks up) the schema for a topic ahead of the first record.</summary>
    /// <param name="topic">The topic.</param>
    /// <param name="component">Key or value.</param>
    /// <param name="cancellationToken">Stops this wait; the registration itself goes on for the records that need it.</param>
    /// <returns>The schema identifier records will carry.</returns>
    /// <exception cref="SchemaRegistryRequestException">Registering or looking up the schema failed.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled first.</exception>
    public async Task<SchemaIdentifier> WarmUpAsync(string topic, MessageComponentType component, CancellationToken cancellationToken = default) =>
        (await CallerWait.WaitAsync(FramingFor(topic, component), cancellationToken).ConfigureAwait(false)).SchemaId;

    private Task<FramedProtobufSerializer<T>> FramingFor(string topic, MessageComponentType component)
    {
        if (topic is null && _options.SubjectNaming != SubjectNaming.Record)
        {
            throw new InvalidOperationException("The serialization context names no topic, which the subject name needs.");
        }

        var target = new Target(topic ?? string.Empty, component);
        if (_byTarget.TryGetValue(target, out Task<FramedProtobufSerializer<T>>? known) && (known.IsFaulted || known.IsCanceled))
        {
            // Failures are not kept: this record asks again.
            ((ICollection<KeyValuePair<Target, Task<FramedProtobufSerializer<T>>>>)_byTarget).Remove(new KeyValuePair<Target, Task<FramedProtobufSerializer<T>>>(target, known));
        }

        return _byTarget.GetOrAdd(target, t => ResolveAsync(t));
    }

    private async Task<FramedProtobufSerializer<T>> ResolveAsync(Target target)
    {
        await Task.Yield(); // never inside the dictionary's GetOrAdd
        string subject = SubjectFor(target.Topic, target.Component);
        RegistrySchema registered;
        if (_options.UseLatestVersion)
        {
            registered = await _client.GetLatestVersionAsync(subject).ConfigureAwait(false);
        }
        else
        {
            IReadOnlyList<RegistrySchema> steps = await _registrar.RegisterAsync(subject, Descriptor.File).ConfigureAwait(false);
            registered = steps[steps.Count - 1];
        }

        SchemaIdentifier identifier = _options.SchemaIdPlacement == SchemaIdPlacement.Header
            ? SchemaIdentifier.FromGuid(registered.Guid ?? throw new InvalidOperationException("The registry gave no schema GUID for " + subject + "; header placement needs one (Confluent Platform 8.0 or later)."))
            : SchemaIdentifier.FromId(registered.Id ?? throw new InvalidOperationException("The registry gave no schema id for " + subject + "."));
        return new FramedProtobufSerializer<T>(identifier, new FramedSerializerOptions
        {
            SchemaIdPlacement = _options.SchemaIdPlacement,
            MessageIndexEncoding = _options.MessageIndexEncoding,
            MessageIndexOrder = _options.MessageIndexOrder,
        });
    }

    private readonly struct Target(string topic, MessageComponentType component) : IEquatable<Target>
    {
        internal string Topic { get; } = topic;

        internal MessageComponentType Component { get; } = component;

        public bool Equals(Target other) => Component == other.Component && string.Equals(Topic, other.Topic, StringComparison.Ordinal);

        public override bool Equals(object? obj) => obj is Target other && Equals(other);

        public override int GetHashCode() => StringComparer.Ordinal.GetHashCode(Topic) ^ (int)Component;
    }

    private sealed class Resolved(string topic, MessageComponentType component, FramedProtobufSerializer<T> framing)
    {
        internal string Topic { get; } = topic;

        internal MessageComponentType Component { get; } = component;

        internal FramedProtobufSerializer<T> Framing { get; } = framing;
    }
}
