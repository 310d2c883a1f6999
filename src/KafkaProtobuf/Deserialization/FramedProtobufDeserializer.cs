using System;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;

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
/// is validated but does not select the type.
/// </para>
/// <para>An instance holds no mutable state: share one across threads and consumers, for keys and values alike.</para>
/// </remarks>
/// <typeparam name="T">The generated Protobuf message type.</typeparam>
public sealed class FramedProtobufDeserializer<T> : IDeserializer<T>, IAsyncDeserializer<T>
    where T : class, IMessage<T>, new()
{
    private static readonly Task<T?> NullResult = Task.FromResult<T?>(null);

    private readonly FrameReader _reader;
    private readonly MessageParser<T> _parser;

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
        _parser = parser ?? throw new ArgumentNullException(nameof(parser));
        _reader = (options ?? new FramedDeserializerOptions()).CreateReader();
    }

    /// <summary>The frame reader this deserializer uses, configured from its options.</summary>
    public FrameReader FrameReader => _reader;

    /// <summary>Deserializes a key or value; called by the Confluent.Kafka consumer for every record.</summary>
    /// <param name="data">The key or value bytes.</param>
    /// <param name="isNull">Whether the key or value is null (a tombstone).</param>
    /// <param name="context">The component (key or value), topic and headers.</param>
    /// <returns>The message, or <see langword="null"/> for null data.</returns>
    /// <exception cref="InvalidFrameException">The framing is malformed or the payload is not a valid <typeparamref name="T"/>.</exception>
    public T? Deserialize(ReadOnlySpan<byte> data, bool isNull, SerializationContext context)
    {
        if (isNull)
        {
            return null;
        }

        if (!_reader.TryRead(data, context, out Frame frame, out FrameError error))
        {
            ThrowHelper.ThrowInvalidFrame(error, context);
        }

        return Parse(frame, context);
    }

    /// <inheritdoc cref="Deserialize"/>
    T IDeserializer<T>.Deserialize(ReadOnlySpan<byte> data, bool isNull, SerializationContext context) =>
        Deserialize(data, isNull, context)!;

    /// <summary>
    /// Deserializes a key or value for consumers that take an <see cref="IAsyncDeserializer{T}"/>. The work is done
    /// synchronously: the task is already complete, or already faulted with <see cref="InvalidFrameException"/> for bad
    /// data (never a synchronous throw).
    /// </summary>
    /// <param name="data">The key or value bytes.</param>
    /// <param name="isNull">Whether the key or value is null (a tombstone).</param>
    /// <param name="context">The component (key or value), topic and headers.</param>
    /// <returns>A completed task with the message (or <see langword="null"/>), or a faulted one.</returns>
    public Task<T?> DeserializeAsync(ReadOnlyMemory<byte> data, bool isNull, SerializationContext context)
    {
        if (isNull)
        {
            return NullResult;
        }

        try
        {
            return Task.FromResult(Deserialize(data.Span, isNull: false, context));
        }
        catch (InvalidFrameException e)
        {
            return Task.FromException<T?>(e);
        }
    }

    /// <inheritdoc cref="DeserializeAsync"/>
    Task<T> IAsyncDeserializer<T>.DeserializeAsync(ReadOnlyMemory<byte> data, bool isNull, SerializationContext context) =>
        DeserializeAsync(data, isNull, context)!;

    // Kept apart from Deserialize: a method with a try block is not inlined.
    private T Parse(in Frame frame, SerializationContext context)
    {
        try
        {
            return _parser.ParseFrom(frame.Payload);
        }
        catch (InvalidProtocolBufferException e)
        {
            throw ThrowHelper.InvalidPayload(frame.PayloadOffset, frame.SchemaId, context, e);
        }
    }

    private static MessageParser<T> DefaultParser() =>
        // The generated parser creates messages with a direct constructor call; fall back to one built on new T().
        new T().Descriptor.Parser as MessageParser<T> ?? new MessageParser<T>(static () => new T());
}
