using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics.CodeAnalysis;
using System.Linq;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using Google.Protobuf.Reflection;

namespace KafkaProtobuf;

/// <summary>
/// Deserializes records of several Protobuf message types from one topic: each record's message-index path (and, with
/// several .proto files, its schema id) selects the generated type, and the result is that type's message as
/// <see cref="IMessage"/>, ready for pattern matching. Use it as <c>ConsumerBuilder&lt;TKey, IMessage&gt;</c>'s value
/// or key deserializer.
/// </summary>
/// <remarks>
/// <para>
/// Resolution is precomputed: a record costs the framing read, a walk down an array per index, and the parse. Records
/// of types not given are rejected or skipped (<see cref="MultiTypeDeserializerOptions.UnregisteredMessageTypes"/>); a
/// path that names no type, or a schema id with no known file, is rejected with its own error code. A record is never
/// parsed as a type other than the one its path names.
/// </para>
/// <para>An instance is immutable (but for a cache of resolver answers) and safe to share across threads and consumers.</para>
/// </remarks>
/// <example>
/// <code>
/// using var consumer = new ConsumerBuilder&lt;string, IMessage&gt;(config)
///     .SetValueDeserializer(MultiTypeProtobufDeserializer.ForFiles(ShopReflection.Descriptor))
///     .Build();
/// switch (consumer.Consume(token).Message.Value)
/// {
///     case OrderPlaced placed: ...; break;
///     case OrderCancelled cancelled: ...; break;
///     case null: /* tombstone */ break;
/// }
/// </code>
/// </example>
public sealed class MultiTypeProtobufDeserializer : IDeserializer<IMessage>, IAsyncDeserializer<IMessage>
{
    // Resolver answers are cached per schema identifier. Real topics carry a handful of schema versions; garbage ids in
    // poison records must neither grow the cache without bound nor make it resize (fuzzing found a 4,096-entry cache
    // allocating 320 KB in one resize), so it is sized once and, when full, the resolver is simply asked again.
    private const int MaxCachedResolverAnswers = 256;

    private static readonly Task<IMessage?> NullResult = Task.FromResult<IMessage?>(null);

    private readonly FrameReader _reader;
    private readonly HashSet<MessageDescriptor> _registered;
    private readonly MessageTypeTable? _onlyFile;
    private readonly Dictionary<SchemaIdentifier, MessageTypeTable> _bySchemaId;
    private readonly Func<SchemaIdentifier, FileDescriptor?>? _resolver;
    private readonly ConcurrentDictionary<SchemaIdentifier, MessageTypeTable>? _resolved;
    private readonly ConcurrentDictionary<FileDescriptor, MessageTypeTable> _tablesByFile = new();
    private readonly bool _skipUnregistered;

    /// <summary>Creates a deserializer for every message type of <paramref name="files"/>.</summary>
    /// <param name="files">Generated file descriptors, e.g. <c>ShopReflection.Descriptor</c>.</param>
    /// <param name="options">The options, or <see langword="null"/> for the defaults.</param>
    /// <exception cref="ArgumentException">No file is given, or one is <see langword="null"/>.</exception>
    public MultiTypeProtobufDeserializer(IEnumerable<FileDescriptor> files, MultiTypeDeserializerOptions? options)
        : this(AllMessageTypes(files), options)
    {
    }

    /// <summary>
    /// Creates a deserializer for exactly <paramref name="messageTypes"/>; other types of their files are rejected or
    /// skipped as <see cref="MultiTypeDeserializerOptions.UnregisteredMessageTypes"/> says.
    /// </summary>
    /// <param name="messageTypes">Generated message descriptors, e.g. <c>OrderPlaced.Descriptor</c>.</param>
    /// <param name="options">The options, or <see langword="null"/> for the defaults.</param>
    /// <exception cref="ArgumentException">No type is given, one is <see langword="null"/>, or one is a map entry.</exception>
    /// <exception cref="ArgumentOutOfRangeException">An option is not a defined enum value.</exception>
    public MultiTypeProtobufDeserializer(IEnumerable<MessageDescriptor> messageTypes, MultiTypeDeserializerOptions? options)
    {
        if (messageTypes is null)
        {
            throw new ArgumentNullException(nameof(messageTypes));
        }

        options ??= new MultiTypeDeserializerOptions();
        if (options.UnregisteredMessageTypes is not (UnregisteredMessageTypeHandling.Reject or UnregisteredMessageTypeHandling.Skip))
        {
            ThrowHelper.ThrowArgumentOutOfRange(nameof(options), "Unknown handling for unregistered message types.");
        }

        _registered = new HashSet<MessageDescriptor>(messageTypes);
        if (_registered.Count == 0 || _registered.Contains(null!))
        {
            throw new ArgumentException("Give at least one message type, and no null ones.", nameof(messageTypes));
        }

        if (_registered.Any(t => t.Parser is null))
        {
            throw new ArgumentException("Map entry types cannot be records.", nameof(messageTypes));
        }

        _reader = new FrameReader(options.MessageIndexEncoding, options.SchemaIdLookup);
        _skipUnregistered = options.UnregisteredMessageTypes == UnregisteredMessageTypeHandling.Skip;
        _bySchemaId = options.SchemaFiles.ToDictionary(pair => pair.Key, pair => TableFor(pair.Value ?? throw new ArgumentException("A schema file is null.", nameof(options))));
        _resolver = options.SchemaFileResolver;
        _resolved = _resolver is null
            ? null
            : new ConcurrentDictionary<SchemaIdentifier, MessageTypeTable>(Environment.ProcessorCount, 2 * MaxCachedResolverAnswers);

        FileDescriptor[] files = _registered.Select(t => t.File).Distinct().ToArray();
        if (files.Length == 1 && _bySchemaId.Count == 0 && _resolver is null)
        {
            _onlyFile = TableFor(files[0]);
        }

        MessageTypes = _registered.ToArray();
    }

    /// <summary>The message types this deserializer parses.</summary>
    public IReadOnlyList<MessageDescriptor> MessageTypes { get; }

    /// <summary>A deserializer for every message type of <paramref name="files"/>, with default options.</summary>
    /// <param name="files">Generated file descriptors.</param>
    /// <returns>The deserializer.</returns>
    public static MultiTypeProtobufDeserializer ForFiles(params FileDescriptor[] files) => new(files, null);

    /// <summary>A deserializer for exactly <paramref name="messageTypes"/>, with default options (other types are rejected).</summary>
    /// <param name="messageTypes">Generated message descriptors.</param>
    /// <returns>The deserializer.</returns>
    public static MultiTypeProtobufDeserializer ForMessageTypes(params MessageDescriptor[] messageTypes) => new(messageTypes, null);

    /// <summary>Deserializes a key or value into the message type its framing names.</summary>
    /// <param name="data">The key or value bytes.</param>
    /// <param name="isNull">Whether the key or value is null (a tombstone).</param>
    /// <param name="context">The component (key or value), topic and headers.</param>
    /// <returns>The message; a <see cref="SkippedMessage"/> for a skipped type; <see langword="null"/> for null data.</returns>
    /// <exception cref="InvalidFrameException">Bad framing, an unknown schema id or type, an unregistered type (unless skipped), or a bad payload.</exception>
    public IMessage? Deserialize(ReadOnlySpan<byte> data, bool isNull, SerializationContext context)
    {
        if (isNull)
        {
            return null;
        }

        if (!TryDecode(data, context, out Frame frame, out IMessage? message, out FrameError error, out MessageTypeTable? table, out Exception? cause))
        {
            ThrowFor(frame, error, table, context, cause);
        }

        return message;
    }

    /// <inheritdoc cref="Deserialize"/>
    IMessage IDeserializer<IMessage>.Deserialize(ReadOnlySpan<byte> data, bool isNull, SerializationContext context) =>
        Deserialize(data, isNull, context)!;

    /// <summary>Like <see cref="Deserialize"/>, for consumers that take an <see cref="IAsyncDeserializer{T}"/>: the task is already complete, or already faulted.</summary>
    /// <param name="data">The key or value bytes.</param>
    /// <param name="isNull">Whether the key or value is null (a tombstone).</param>
    /// <param name="context">The component (key or value), topic and headers.</param>
    /// <returns>A completed task with the message, or a faulted one with <see cref="InvalidFrameException"/>.</returns>
    public Task<IMessage?> DeserializeAsync(ReadOnlyMemory<byte> data, bool isNull, SerializationContext context)
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
            return Task.FromException<IMessage?>(e);
        }
    }

    /// <inheritdoc cref="DeserializeAsync"/>
    Task<IMessage> IAsyncDeserializer<IMessage>.DeserializeAsync(ReadOnlyMemory<byte> data, bool isNull, SerializationContext context) =>
        DeserializeAsync(data, isNull, context)!;

    /// <summary>Like <see cref="Deserialize"/>, without throwing for bad data; see <see cref="FramedProtobufDeserializer{T}.TryDeserialize"/>.</summary>
    /// <param name="data">The key or value bytes.</param>
    /// <param name="isNull">Whether the key or value is null (a tombstone).</param>
    /// <param name="context">The component (key or value), topic and headers.</param>
    /// <param name="message">The message, <see cref="SkippedMessage"/> or <see langword="null"/>, when the result is <see langword="true"/>.</param>
    /// <param name="error">What was wrong when the result is <see langword="false"/>.</param>
    /// <returns><see langword="true"/> when the record deserialized (or was skipped).</returns>
    public bool TryDeserialize(ReadOnlySpan<byte> data, bool isNull, SerializationContext context, out IMessage? message, out FrameError error)
    {
        if (isNull)
        {
            message = null;
            error = default;
            return true;
        }

        return TryDecode(data, context, out _, out message, out error, out _, out _);
    }

    private bool TryDecode(
        ReadOnlySpan<byte> data,
        SerializationContext context,
        out Frame frame,
        out IMessage? message,
        out FrameError error,
        out MessageTypeTable? table,
        out Exception? cause)
    {
        message = null;
        table = null;
        cause = null;
        if (!_reader.TryRead(data, context, out frame, out error))
        {
            KafkaProtobufMetrics.Failed(error.Code);
            return false;
        }

        table = _onlyFile ?? FindTable(frame.SchemaId);
        MessageTypeTable.Node? node = table?.Find(frame.MessageIndexes);
        if (node?.Parser is not { } parser)
        {
            if (node is not null && _skipUnregistered)
            {
                message = node.Skipped;
                KafkaProtobufMetrics.Skipped(node.TypeTag);
                return true;
            }

            FrameErrorCode code = table is null ? FrameErrorCode.UnknownSchemaId
                : node is null ? FrameErrorCode.UnknownMessageType
                : FrameErrorCode.UnregisteredMessageType;
            error = new FrameError(code, frame.MessageIndexesOffset, frame.SchemaIdLocation, frame.SchemaId);
            KafkaProtobufMetrics.Failed(code);
            return false;
        }

        try
        {
            message = parser.ParseFrom(frame.Payload);
        }
        catch (InvalidProtocolBufferException e)
        {
            cause = e;
            error = new FrameError(FrameErrorCode.InvalidPayload, frame.PayloadOffset, FrameErrorLocation.RecordData, frame.SchemaId);
            KafkaProtobufMetrics.Failed(error.Code);
            return false;
        }

        KafkaProtobufMetrics.Deserialized(node.TypeTag, data.Length);
        return true;
    }

    private MessageTypeTable? FindTable(SchemaIdentifier schemaId)
    {
        if (_bySchemaId.TryGetValue(schemaId, out MessageTypeTable? table))
        {
            return table;
        }

        if (_resolved is null)
        {
            return null;
        }

        if (_resolved.TryGetValue(schemaId, out table))
        {
            return table;
        }

        FileDescriptor? file = _resolver!(schemaId);
        if (file is null)
        {
            return null;
        }

        table = TableFor(file);
        if (_resolved.Count < MaxCachedResolverAnswers)
        {
            _resolved.TryAdd(schemaId, table);
        }

        return table;
    }

    private MessageTypeTable TableFor(FileDescriptor file) =>
        _tablesByFile.GetOrAdd(file, f => MessageTypeTable.Build(f, _registered.Contains));

    [DoesNotReturn]
    private static void ThrowFor(Frame frame, FrameError error, MessageTypeTable? table, SerializationContext context, Exception? cause)
    {
        int[]? path = error.Code >= FrameErrorCode.InvalidPayload ? frame.MessageIndexes.ToArray() : null;
        string? detail = error.Code switch
        {
            FrameErrorCode.UnknownSchemaId => "map the identifier to its .proto file in MultiTypeDeserializerOptions.SchemaFiles or SchemaFileResolver",
            FrameErrorCode.UnknownMessageType => "the path is read in " + table!.File.Name,
            FrameErrorCode.UnregisteredMessageType => "the record is a " + table!.Find(frame.MessageIndexes)!.Descriptor.FullName,
            _ => null,
        };
        throw new InvalidFrameException(error, context.Component, context.Topic, path, detail, cause);
    }

    private static IEnumerable<MessageDescriptor> AllMessageTypes(IEnumerable<FileDescriptor> files)
    {
        if (files is null)
        {
            throw new ArgumentNullException(nameof(files));
        }

        FileDescriptor[] all = files.ToArray();
        if (all.Length == 0 || all.Contains(null!))
        {
            throw new ArgumentException("Give at least one file, and no null ones.", nameof(files));
        }

        return all.SelectMany(f => f.MessageTypes).SelectMany(Flatten).Where(t => t.Parser is not null);

        static IEnumerable<MessageDescriptor> Flatten(MessageDescriptor type) => new[] { type }.Concat(type.NestedTypes.SelectMany(Flatten));
    }
}
