using System;
using System.Collections.Generic;
using System.Diagnostics.CodeAnalysis;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf.Descriptors;
using KafkaProtobuf.Deserialization;
using KafkaProtobuf.Framing;
using KafkaProtobuf.Resolution;

namespace KafkaProtobuf;

/// <summary>
/// Deserializes records of several Protobuf message types from one topic: each record's message-index path (and, with
/// several .proto files, its schema id) selects the generated type, and the result is that type's message as
/// <see cref="IMessage"/>, ready for pattern matching. Use it as <c>ConsumerBuilder&lt;TKey, IMessage&gt;</c>'s value
/// or key deserializer.
/// </summary>
/// <remarks>
/// <para>
/// Resolution is precomputed: a record costs the framing read, a walk down an array per index, and the parse. The path
/// is read in the writer's .proto file (the file the schema id maps to, e.g. rebuilt from a schema registry by a
/// <see cref="WriterSchemaOptions.Source"/>), and the writer's type is matched to the given types
/// by full name, so a reader whose .proto declares its messages in another order still gets the right type. Records
/// of types not given are rejected or skipped (<see cref="MultiTypeDeserializerOptions.UnregisteredMessageTypes"/>); a
/// path that names no type, or a schema id with no known file, is rejected with its own error code. A record is never
/// parsed as a type other than the one its path names. A schema source that fails throws
/// <see cref="SchemaUnavailableException"/>, never <see cref="InvalidFrameException"/>: the record is not bad data.
/// </para>
/// <para>An instance is immutable (but for its bounded cache of the schema source's answers) and safe to share across threads and consumers.</para>
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
    private readonly RecordDecoder<IMessage, WriterTypeParser> _decoder;

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
    /// <exception cref="ArgumentException">No type is given, one is <see langword="null"/> or a map entry, or two share a full name.</exception>
    /// <exception cref="ArgumentOutOfRangeException">An option is not a defined enum value.</exception>
    public MultiTypeProtobufDeserializer(IEnumerable<MessageDescriptor> messageTypes, MultiTypeDeserializerOptions? options)
    {
        if (messageTypes is null)
        {
            throw new ArgumentNullException(nameof(messageTypes));
        }

        options ??= new MultiTypeDeserializerOptions();
        new OptionProblems(nameof(MultiTypeDeserializerOptions))
            .RequireOneOf(options.UnregisteredMessageTypes, nameof(options.UnregisteredMessageTypes), UnregisteredMessageTypeHandling.Reject, UnregisteredMessageTypeHandling.Skip)
            .ThrowIfAny(nameof(options));

        var registered = new HashSet<MessageDescriptor>(messageTypes);
        if (registered.Count == 0 || registered.Contains(null!))
        {
            throw new ArgumentException("Give at least one message type, and no null ones.", nameof(messageTypes));
        }

        if (registered.Any(t => !MessageTypePath.IsRecordType(t) || t.Parser is null))
        {
            throw new ArgumentException("Give generated message types: a map entry type is no record type, and a type without a generated parser cannot be parsed.", nameof(messageTypes));
        }

        _decoder = RecordDecoder<IMessage, WriterTypeParser>.ForTypes(registered, options);
        MessageTypes = Array.AsReadOnly(registered.ToArray());
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
    /// <exception cref="InvalidFrameException">Bad framing, an unknown schema id or type, an unregistered type (unless skipped), an incompatible writer's schema, or a bad payload.</exception>
    /// <exception cref="SchemaUnavailableException">The writer's schema source failed: not bad data.</exception>
    public IMessage? Deserialize(ReadOnlySpan<byte> data, bool isNull, SerializationContext context) =>
        _decoder.Deserialize(data, isNull, context);

    /// <inheritdoc cref="Deserialize"/>
    IMessage IDeserializer<IMessage>.Deserialize(ReadOnlySpan<byte> data, bool isNull, SerializationContext context) =>
        Deserialize(data, isNull, context)!;

    /// <summary>Like <see cref="Deserialize"/>, for consumers that take an <see cref="IAsyncDeserializer{T}"/>: the task is already complete, or already faulted.</summary>
    /// <param name="data">The key or value bytes.</param>
    /// <param name="isNull">Whether the key or value is null (a tombstone).</param>
    /// <param name="context">The component (key or value), topic and headers.</param>
    /// <returns>A completed task with the message, or a faulted one with <see cref="InvalidFrameException"/> or <see cref="SchemaUnavailableException"/>.</returns>
    public Task<IMessage?> DeserializeAsync(ReadOnlyMemory<byte> data, bool isNull, SerializationContext context) =>
        CompletedDeserialization<IMessage>.Run(_decoder, data, isNull, context);

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
    /// <exception cref="SchemaUnavailableException">The writer's schema source failed: not bad data, so not an <paramref name="error"/>.</exception>
    public bool TryDeserialize(ReadOnlySpan<byte> data, bool isNull, SerializationContext context, out IMessage? message, out FrameError error) =>
        _decoder.TryDeserialize(data, isNull, context, out message, out error);

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

        return all.SelectMany(f => f.MessageTypes).SelectMany(Flatten).Where(MessageTypePath.IsRecordType);

        static IEnumerable<MessageDescriptor> Flatten(MessageDescriptor type) => new[] { type }.Concat(type.NestedTypes.SelectMany(Flatten));
    }
}
