using System;
using System.Collections.Generic;
using System.Diagnostics.CodeAnalysis;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using Google.Protobuf.Reflection;
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
/// <typeparamref name="T"/>'s, and <see cref="MultiTypeProtobufDeserializer"/> selects the type by it.
/// </para>
/// <para>An instance holds no mutable state: share one across threads and consumers, for keys and values alike.</para>
/// </remarks>
/// <typeparam name="T">The generated Protobuf message type.</typeparam>
public sealed class FramedProtobufDeserializer<T> : IDeserializer<T>, IAsyncDeserializer<T>, ISpanDeserializer<T>
    where T : class, IMessage<T>, new()
{
    private readonly FrameReader _reader;
    private readonly MessageParser<T> _parser;

    // T's own path, when records must be checked against it without a resolver (VerifyWriterType).
    private readonly int[]? _writerTypePath;

    // With a resolver: the writer's files, where each record's path names its type (VerifyWriterType by name, VerifyWriterSchema).
    private readonly WriterSchemas? _writerSchemas;
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
        if (options.VerifyWriterSchema && options.SchemaFileResolver is null)
        {
            throw new ArgumentException("VerifyWriterSchema compares with the writer's schema, which needs a SchemaFileResolver.", nameof(options));
        }

        _reader = options.CreateReader();
        MessageDescriptor descriptor = new T().Descriptor;
        if (options.SchemaFileResolver is not null && (options.VerifyWriterType || options.VerifyWriterSchema))
        {
            _writerSchemas = new WriterSchemas([descriptor], [], options.SchemaFileResolver, options.VerifyWriterSchema);
        }
        else if (options.VerifyWriterType)
        {
            _writerTypePath = MessageTypePath.Of(descriptor);
        }

        _typeTag = KafkaProtobufMetrics.TypeTag(descriptor.FullName);
    }

    /// <summary>The frame reader this deserializer uses, configured from its options.</summary>
    public FrameReader FrameReader => _reader;

    /// <summary>Deserializes a key or value; called by the Confluent.Kafka consumer for every record.</summary>
    /// <param name="data">The key or value bytes.</param>
    /// <param name="isNull">Whether the key or value is null (a tombstone).</param>
    /// <param name="context">The component (key or value), topic and headers.</param>
    /// <returns>The message, or <see langword="null"/> for null data.</returns>
    /// <exception cref="InvalidFrameException">The framing is malformed, the record is of another type or schema (when checked), or the payload is not a valid <typeparamref name="T"/>.</exception>
    /// <exception cref="SchemaUnavailableException">The schema file resolver failed: not bad data.</exception>
    public T? Deserialize(ReadOnlySpan<byte> data, bool isNull, SerializationContext context)
    {
        if (isNull)
        {
            return null;
        }

        if (!TryDecode(data, context, out Frame frame, out T? message, out FrameError error, out Exception? cause))
        {
            ThrowHelper.ThrowInvalidFrame(error, context, frame, Describe(frame, error.Code, context), cause);
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
    /// <exception cref="SchemaUnavailableException">The schema file resolver failed: not bad data, so not an <paramref name="error"/>.</exception>
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
    /// data or <see cref="SchemaUnavailableException"/> (never a synchronous throw).
    /// </summary>
    /// <param name="data">The key or value bytes.</param>
    /// <param name="isNull">Whether the key or value is null (a tombstone).</param>
    /// <param name="context">The component (key or value), topic and headers.</param>
    /// <returns>A completed task with the message (or <see langword="null"/>), or a faulted one.</returns>
    public Task<T?> DeserializeAsync(ReadOnlyMemory<byte> data, bool isNull, SerializationContext context) =>
        CompletedDeserialization<T>.Run(this, data, isNull, context);

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

        FrameErrorCode code = _writerTypePath is not null
            ? (frame.MessageIndexes.SequenceEqual(_writerTypePath) ? FrameErrorCode.None : FrameErrorCode.UnexpectedMessageType)
            : _writerSchemas is not null ? CheckWriterType(frame, context) : FrameErrorCode.None;
        if (code != FrameErrorCode.None)
        {
            error = new FrameError(code, frame.MessageIndexesOffset, frame.SchemaIdLocation, frame.SchemaId);
            KafkaProtobufMetrics.Failed(code);
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

    /// <summary>Reads the record's path in the writer's file: the type it names must be <typeparamref name="T"/> (by name), and readable as it.</summary>
    private FrameErrorCode CheckWriterType(in Frame frame, SerializationContext context)
    {
        MessageTypeTable? table = _writerSchemas!.Find(frame.SchemaId, context);
        MessageTypeTable.Node? node = table?.Find(frame.MessageIndexes);
        return table is null ? FrameErrorCode.UnknownSchemaId
            : node is null ? FrameErrorCode.UnknownMessageType
            : node.Reader is null ? FrameErrorCode.UnexpectedMessageType
            : node.Incompatibility is null ? FrameErrorCode.None
            : FrameErrorCode.IncompatibleWriterSchema;
    }

    /// <summary>What else is known about a type fault, for the exception's message (off the hot path).</summary>
    private string? Describe(in Frame frame, FrameErrorCode code, SerializationContext context)
    {
        if (code < FrameErrorCode.UnknownSchemaId)
        {
            return null;
        }

        if (_writerSchemas is null)
        {
            return "expected " + typeof(T).Name + " at [" + string.Join(", ", _writerTypePath!) + "]";
        }

        MessageTypeTable? table = _writerSchemas.Find(frame.SchemaId, context);
        MessageTypeTable.Node? node = table?.Find(frame.MessageIndexes);
        return code switch
        {
            FrameErrorCode.UnknownSchemaId => "the schema file resolver does not know the identifier",
            FrameErrorCode.UnknownMessageType => "the path is read in " + table!.File.Name,
            FrameErrorCode.UnexpectedMessageType => "the record is a " + node!.Writer.FullName + ", expected " + _typeTag.Value,
            _ => node!.Incompatibility,
        };
    }

    private static MessageParser<T> DefaultParser() =>
        // The generated parser creates messages with a direct constructor call; fall back to one built on new T().
        new T().Descriptor.Parser as MessageParser<T> ?? new MessageParser<T>(static () => new T());
}
