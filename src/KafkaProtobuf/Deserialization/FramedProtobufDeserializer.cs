using System;
using System.Collections.Generic;
using System.Diagnostics.CodeAnalysis;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf.Deserialization;
using KafkaProtobuf.Framing;
using KafkaProtobuf.Resolution;

namespace KafkaProtobuf;

/// <summary>
/// Deserializes record keys or values written by a Confluent Schema Registry Protobuf serializer into the generated
/// message type <typeparamref name="T"/>, straight from the record's bytes: no copy, no <see cref="Task"/>, no registry
/// call. Tombstones (null data) come back as <see langword="null"/>; bad data throws <see cref="InvalidFrameException"/>.
/// </summary>
/// <remarks>
/// <para>
/// The schema identifier is read (and exposed by <see cref="FrameReader"/>) but not looked up: the payload is parsed as
/// <typeparamref name="T"/>, exactly as Confluent's deserializer without a registry client does. The message-index path
/// is validated but does not select the type; <see cref="FramedDeserializerOptions.VerifyWriterType"/> checks it against
/// <typeparamref name="T"/> (by name in the writer's file, given <see cref="FramedDeserializerOptions.WriterSchemas"/>),
/// and <see cref="MultiTypeProtobufDeserializer"/> selects the type by it.
/// </para>
/// <para>An instance holds no mutable state: share one across threads and consumers, for keys and values alike.</para>
/// </remarks>
/// <typeparam name="T">The generated Protobuf message type.</typeparam>
public sealed class FramedProtobufDeserializer<T> : IDeserializer<T>, IAsyncDeserializer<T>
    where T : class, IMessage<T>, new()
{
    private readonly RecordDecoder<T, OwnTypeParser<T>> _decoder;

    /// <summary>Creates a deserializer for the current format (zigzag indexes, schema-id header before prefix).</summary>
    public FramedProtobufDeserializer()
        : this(DefaultParser(), null)
    {
    }

    /// <summary>Creates a deserializer with the given options.</summary>
    /// <param name="options">The options, or <see langword="null"/> for the defaults.</param>
    public FramedProtobufDeserializer(FramedDeserializerOptions? options)
        : this(DefaultParser(), options)
    {
    }

    /// <summary>
    /// Creates a deserializer that parses payloads with <paramref name="parser"/>, e.g.
    /// <c>Order.Parser.WithDiscardUnknownFields(true)</c> or a parser with an extension registry.
    /// </summary>
    /// <param name="parser">The parser for <typeparamref name="T"/>.</param>
    /// <param name="options">The options, or <see langword="null"/> for the defaults.</param>
    /// <exception cref="ArgumentNullException"><paramref name="parser"/> is <see langword="null"/>.</exception>
    public FramedProtobufDeserializer(MessageParser<T> parser, FramedDeserializerOptions? options)
    {
        if (parser is null)
        {
            throw new ArgumentNullException(nameof(parser));
        }

        _decoder = RecordDecoder<T, OwnTypeParser<T>>.ForType(new OwnTypeParser<T>(parser), new T().Descriptor, options ?? new FramedDeserializerOptions());
    }

    /// <summary>
    /// The frame reader this deserializer uses, configured from its options; with
    /// <see cref="MessageIndexOrder.EitherByWriterSchema"/> it reads paths root first, and the deserializer decides the order.
    /// </summary>
    public FrameReader FrameReader => _decoder.FrameReader;

    /// <summary>Deserializes a key or value; called by the Confluent.Kafka consumer for every record.</summary>
    /// <param name="data">The key or value bytes.</param>
    /// <param name="isNull">Whether the key or value is null (a tombstone).</param>
    /// <param name="context">The component (key or value), topic and headers.</param>
    /// <returns>The message, or <see langword="null"/> for null data.</returns>
    /// <exception cref="InvalidFrameException">The framing is malformed, the record is of another type or schema (when checked), or the payload is not a valid <typeparamref name="T"/>.</exception>
    /// <exception cref="SchemaUnavailableException">The writer's schema source failed: not bad data.</exception>
    public T? Deserialize(ReadOnlySpan<byte> data, bool isNull, SerializationContext context) =>
        _decoder.Deserialize(data, isNull, context);

    /// <inheritdoc cref="Deserialize"/>
    T IDeserializer<T>.Deserialize(ReadOnlySpan<byte> data, bool isNull, SerializationContext context) =>
        Deserialize(data, isNull, context)!;

    /// <summary>
    /// Deserializes a key or value without throwing for bad data: for consumers of raw bytes
    /// (<c>ConsumerBuilder&lt;byte[], byte[]&gt;</c>) that keep exceptions off their hot path.
    /// </summary>
    /// <param name="data">The key or value bytes.</param>
    /// <param name="isNull">Whether the key or value is null (a tombstone).</param>
    /// <param name="context">The component (key or value), topic and headers.</param>
    /// <param name="message">The message (<see langword="null"/> for null data) when the result is <see langword="true"/>.</param>
    /// <param name="error">What was wrong when the result is <see langword="false"/>: code, offset, location and schema identifier.</param>
    /// <returns><see langword="true"/> when the record deserialized.</returns>
    /// <remarks>
    /// A framing or type fault allocates nothing. A payload the Protobuf parser rejects
    /// (<see cref="FrameErrorCode.InvalidPayload"/>) costs the parser's own exception, caught inside: Google.Protobuf
    /// has no non-throwing parse.
    /// </remarks>
    /// <exception cref="SchemaUnavailableException">The writer's schema source failed: not bad data, so not an <paramref name="error"/>.</exception>
    public bool TryDeserialize(ReadOnlySpan<byte> data, bool isNull, SerializationContext context, out T? message, out FrameError error) =>
        _decoder.TryDeserialize(data, isNull, context, out message, out error);

    /// <summary>
    /// Deserializes a key or value for consumers that take an <see cref="IAsyncDeserializer{T}"/>. The work is done
    /// synchronously: the task is already complete, or already faulted with <see cref="InvalidFrameException"/> for bad
    /// data or <see cref="SchemaUnavailableException"/> (never a synchronous throw).
    /// </summary>
    /// <param name="data">The key or value bytes.</param>
    /// <param name="isNull">Whether the key or value is null (a tombstone).</param>
    /// <param name="context">The component (key or value), topic and headers.</param>
    /// <returns>A completed task with the message (or <see langword="null"/>), or a faulted one.</returns>
    public Task<T?> DeserializeAsync(ReadOnlyMemory<byte> data, bool isNull, SerializationContext context) =>
        CompletedDeserialization<T>.Run(_decoder, data, isNull, context);

    /// <inheritdoc cref="DeserializeAsync"/>
    Task<T> IAsyncDeserializer<T>.DeserializeAsync(ReadOnlyMemory<byte> data, bool isNull, SerializationContext context) =>
        DeserializeAsync(data, isNull, context)!;

    /// <summary>
    /// Fetches the writer's files of these schema identifiers from <see cref="WriterSchemaOptions.Source"/> ahead of
    /// their first records, so that those do not wait for it (a deserializer is synchronous).
    /// </summary>
    /// <param name="schemaIds">The schema ids and GUIDs to fetch.</param>
    /// <param name="cancellationToken">Stops waiting.</param>
    /// <returns>The identifiers whose records will be bad data: those the source does not know (<see cref="FrameErrorCode.UnknownSchemaId"/>) or has a schema for that cannot be used (<see cref="FrameErrorCode.UnusableWriterSchema"/>).</returns>
    /// <exception cref="InvalidOperationException">The deserializer reads no writer's schemas from a source.</exception>
    /// <exception cref="Exception">Whatever the source throws when it fails.</exception>
    public Task<IReadOnlyList<SchemaIdentifier>> WarmUpAsync(IEnumerable<SchemaIdentifier> schemaIds, CancellationToken cancellationToken = default) =>
        _decoder.WarmUpAsync(schemaIds, cancellationToken);

    private static MessageParser<T> DefaultParser() =>
        // The generated parser creates messages with a direct constructor call; fall back to one built on new T().
        new T().Descriptor.Parser as MessageParser<T> ?? new MessageParser<T>(static () => new T());
}
