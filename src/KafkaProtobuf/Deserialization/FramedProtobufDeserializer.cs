using System;
using System.Collections.Generic;
using System.Diagnostics.CodeAnalysis;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using Google.Protobuf.Reflection;

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
/// <typeparamref name="T"/>'s, and <see cref="MultiTypeProtobufDeserializer"/> selects the type by it.
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

    // T's own path, when records must be checked against it (FramedDeserializerOptions.VerifyWriterType).
    private readonly int[]? _writerTypePath;
    private readonly KeyValuePair<string, object?> _typeTag;

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
        options ??= new FramedDeserializerOptions();
        _reader = options.CreateReader();
        MessageDescriptor descriptor = new T().Descriptor;
        _writerTypePath = options.VerifyWriterType ? MessageTypePath.Of(descriptor) : null;
        _typeTag = KafkaProtobufMetrics.TypeTag(descriptor.FullName);
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

        if (!TryDecode(data, context, out Frame frame, out T? message, out FrameError error, out Exception? cause))
        {
            ThrowFor(frame, error, context, cause);
        }

        return message;
    }

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
    public bool TryDeserialize(ReadOnlySpan<byte> data, bool isNull, SerializationContext context, out T? message, out FrameError error)
    {
        if (isNull)
        {
            message = null;
            error = default;
            return true;
        }

        return TryDecode(data, context, out _, out message, out error, out _);
    }

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

    /// <summary>Reads the framing, checks the type when asked to, parses. The one path every entry point takes.</summary>
    private bool TryDecode(
        ReadOnlySpan<byte> data, SerializationContext context, out Frame frame, out T? message, out FrameError error, out Exception? cause)
    {
        message = null;
        cause = null;
        if (!_reader.TryRead(data, context, out frame, out error))
        {
            KafkaProtobufMetrics.Failed(error.Code);
            return false;
        }

        if (_writerTypePath is not null && !frame.MessageIndexes.SequenceEqual(_writerTypePath))
        {
            error = new FrameError(FrameErrorCode.UnexpectedMessageType, frame.MessageIndexesOffset, frame.SchemaIdLocation, frame.SchemaId);
            KafkaProtobufMetrics.Failed(error.Code);
            return false;
        }

        try
        {
            message = _parser.ParseFrom(frame.Payload);
        }
        catch (InvalidProtocolBufferException e)
        {
            cause = e;
            error = new FrameError(FrameErrorCode.InvalidPayload, frame.PayloadOffset, FrameErrorLocation.RecordData, frame.SchemaId);
            KafkaProtobufMetrics.Failed(error.Code);
            return false;
        }

        KafkaProtobufMetrics.Deserialized(_typeTag, data.Length);
        return true;
    }

    [DoesNotReturn]
    private void ThrowFor(Frame frame, FrameError error, SerializationContext context, Exception? cause)
    {
        // Faults after the framing was read can name the path; earlier ones have none to name.
        int[]? path = error.Code is FrameErrorCode.UnexpectedMessageType or FrameErrorCode.InvalidPayload ? frame.MessageIndexes.ToArray() : null;
        string? detail = error.Code == FrameErrorCode.UnexpectedMessageType
            ? "expected " + typeof(T).Name + " at [" + string.Join(", ", _writerTypePath!) + "]"
            : null;
        throw new InvalidFrameException(error, context.Component, context.Topic, path, detail, cause);
    }

    private static MessageParser<T> DefaultParser() =>
        // The generated parser creates messages with a direct constructor call; fall back to one built on new T().
        new T().Descriptor.Parser as MessageParser<T> ?? new MessageParser<T>(static () => new T());
}
