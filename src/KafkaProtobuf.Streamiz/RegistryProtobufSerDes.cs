using System;
using System.Collections.Generic;
using System.Globalization;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.SchemaRegistry;
using Streamiz.Kafka.Net;
using Streamiz.Kafka.Net.SerDes;

namespace KafkaProtobuf.Streamiz;

/// <summary>
/// Streamiz serdes for a generated Protobuf type in Confluent Schema Registry framing: KafkaProtobuf's registry
/// serializer and typed deserializer, synchronous both ways (after a schema's first record nothing waits on the
/// registry and nothing is allocated but the message and its bytes), tombstones as <see langword="null"/>.
/// </summary>
/// <remarks>
/// <para>
/// With the parameterless constructor (as a default serdes, <c>StreamConfig&lt;..., RegistryProtobufSerDes&lt;T&gt;&gt;</c>, or
/// in <c>builder.Stream&lt;K, V, KS, VS&gt;</c>) the registry client is made in <see cref="Initialize"/> from the stream
/// configuration's <c>schema.registry.*</c> settings, Confluent's names (<see cref="RegistryClientOptions.FromSettings(IEnumerable{KeyValuePair{string, string}}, IEnumerable{KeyValuePair{string, string}})"/>:
/// OAuth, Confluent Cloud, TLS, <c>SASL_INHERIT</c> from the stream's <c>sasl.*</c>), and the serializer's from Streamiz's
/// <c>protobuf.serializer.*</c> (<c>auto.register.schemas</c>, <c>use.latest.version</c>, <c>skip.known.types</c>,
/// <c>subject.name.strategy</c>, <c>use.deprecated.format</c>); <c>schema.registry.max.cached.schemas</c> is the
/// deserializer's cache capacity. A setting it cannot honour stops the stream at start-up, named.
/// </para>
/// <para>
/// The schema id is always written in the prefix and read from the prefix only: Streamiz hands state stores, changelogs,
/// repartition and output topics the headers of the record being processed, so an id in a header would be lost or, worse,
/// another record's. Records another producer wrote with the id in a header need a serdes constructed with
/// <see cref="FramingOptions.SchemaIdLookup"/> set to <see cref="SchemaIdLookup.HeaderThenPrefix"/>, for that source topic only.
/// </para>
/// <para>
/// Bad data throws <see cref="InvalidFrameException"/> (error code, offset, schema id); a registry that cannot be asked
/// throws <see cref="SchemaUnavailableException"/>. Give <see cref="ProtobufDeserializationHandler.ContinueOnBadDataOnly"/>
/// as the stream's <c>DeserializationExceptionHandler</c>: a poison record is skipped, a registry outage stops the stream
/// thread rather than skip records that are fine.
/// </para>
/// </remarks>
/// <typeparam name="T">The generated message type.</typeparam>
public sealed class RegistryProtobufSerDes<T> : ISerDes<T>
    where T : class, IMessage<T>, new()
{
    private readonly object _lock = new();
    private volatile Pair? _pair;

    /// <summary>Serdes whose registry client and settings come from the stream's configuration in <see cref="Initialize"/>.</summary>
    public RegistryProtobufSerDes()
    {
    }

    /// <summary>Serdes on a registry client of your own (shared, disposed by you), ready without <see cref="Initialize"/>.</summary>
    /// <param name="registry">The registry client.</param>
    /// <param name="serializerOptions">The serializer's options; <see langword="null"/>: Confluent's defaults. The schema id is always in the prefix.</param>
    /// <param name="framing">How records are read; <see langword="null"/>: the id from the prefix only (see the remarks).</param>
    /// <exception cref="ArgumentException">Header placement of the schema id, which state stores would lose.</exception>
    public RegistryProtobufSerDes(RegistryClient registry, RegistrySerializerOptions? serializerOptions = null, FramingOptions? framing = null)
    {
        if (registry is null)
        {
            throw new ArgumentNullException(nameof(registry));
        }

        _pair = new Pair(registry, serializerOptions ?? new RegistrySerializerOptions(), framing, cacheCapacity: null);
    }

    /// <summary>Reads a record's value or key; <see langword="null"/> for a tombstone.</summary>
    /// <param name="data">The bytes, or <see langword="null"/>.</param>
    /// <param name="context">The topic and component.</param>
    /// <returns>The message, or <see langword="null"/>.</returns>
    /// <exception cref="InvalidFrameException">Bad data.</exception>
    /// <exception cref="SchemaUnavailableException">The registry could not be asked: not bad data.</exception>
    public T? Deserialize(byte[]? data, SerializationContext context) =>
        data is null ? null : Ready().Deserializer.Deserialize(data, isNull: false, context);

    /// <summary>Writes a message with its schema id (registered on a subject's first record) in the prefix; <see langword="null"/> for a tombstone.</summary>
    /// <param name="data">The message, or <see langword="null"/>.</param>
    /// <param name="context">The topic (the subject's) and component.</param>
    /// <returns>The bytes, or <see langword="null"/>.</returns>
    public byte[]? Serialize(T? data, SerializationContext context) =>
        data is null ? null : Ready().Serializer.Serialize(data, context);

    /// <summary>Streamiz's view of <see cref="Deserialize"/>: <see langword="null"/> for a tombstone all the same.</summary>
    T ISerDes<T>.Deserialize(byte[] data, SerializationContext context) => Deserialize(data, context)!;

    /// <inheritdoc cref="Deserialize"/>
    public object? DeserializeObject(byte[]? data, SerializationContext context) => Deserialize(data, context);

    /// <summary>Writes a message of type <typeparamref name="T"/>, or <see langword="null"/> as a tombstone.</summary>
    /// <param name="data">The message.</param>
    /// <param name="context">The topic and component.</param>
    /// <returns>The bytes.</returns>
    /// <exception cref="InvalidOperationException">The object is not a <typeparamref name="T"/>.</exception>
    public byte[]? SerializeObject(object? data, SerializationContext context) => data switch
    {
        null => null,
        T message => Serialize(message, context),
        _ => throw new InvalidOperationException("RegistryProtobufSerDes<" + typeof(T).Name + "> cannot write a " + data.GetType().FullName + "."),
    };

    /// <summary>Makes the registry client from the stream's settings, once (Streamiz calls it for every processor and store).</summary>
    /// <param name="context">The stream's configuration.</param>
    /// <exception cref="ArgumentException">A registry setting this client cannot honour, named, or none naming the registry.</exception>
    public void Initialize(SerDesContext context)
    {
        if (_pair is not null)
        {
            return;
        }

        if (context?.Config is null)
        {
            throw new ArgumentNullException(nameof(context));
        }

        lock (_lock)
        {
            _pair ??= StreamizSettings.Read(context.Config, (registry, serializer, capacity) => new Pair(registry, serializer, null, capacity));
        }
    }

    private Pair Ready() => _pair ?? throw new InvalidOperationException(
        "RegistryProtobufSerDes<" + typeof(T).Name + "> is not initialized: Streamiz initializes serdes given to a topology or as defaults; a serdes used on its own needs a RegistryClient in its constructor.");

    /// <summary>The serializer and deserializer, made together once.</summary>
    private sealed class Pair
    {
        internal Pair(RegistryClient registry, RegistrySerializerOptions serializer, FramingOptions? framing, int? cacheCapacity)
        {
            if (serializer.SchemaIdPlacement != SchemaIdPlacement.Prefix)
            {
                throw new ArgumentException("Streamiz serdes write the schema id in the prefix: state stores and changelogs would lose a header.", nameof(serializer));
            }

            Serializer = new RegistryProtobufSerializer<T>(registry, serializer);
            var options = new FramedDeserializerOptions
            {
                VerifyWriterType = true,
                Framing =
                {
                    SchemaIdLookup = framing?.SchemaIdLookup ?? SchemaIdLookup.PrefixOnly,
                    MessageIndexEncoding = framing?.MessageIndexEncoding ?? serializer.MessageIndexEncoding,
                    MessageIndexPresence = framing?.MessageIndexPresence ?? MessageIndexPresence.Present,
                    MessageIndexOrder = framing?.MessageIndexOrder ?? serializer.MessageIndexOrder,
                },
                WriterSchemas = { Source = registry },
            };
            if (cacheCapacity is { } capacity)
            {
                options.WriterSchemas.CacheCapacity = capacity;
            }

            Deserializer = new FramedProtobufDeserializer<T>(options);
        }

        internal RegistryProtobufSerializer<T> Serializer { get; }

        internal FramedProtobufDeserializer<T> Deserializer { get; }
    }
}
