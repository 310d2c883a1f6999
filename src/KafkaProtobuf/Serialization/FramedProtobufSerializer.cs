using System;
using System.Collections.Generic;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.Descriptors;
using KafkaProtobuf.Framing;

namespace KafkaProtobuf;

/// <summary>
/// Serializes <typeparamref name="T"/> with Schema Registry framing for a schema id or GUID the caller already knows
/// (no registry client): in the record's prefix, or in the schema-id header with the bare payload as the record's
/// bytes. The message-index path is computed from <typeparamref name="T"/>'s descriptor, nested types included. The
/// output is byte-identical to Confluent's <c>ProtobufSerializer&lt;T&gt;</c> for the same identifier, type and
/// placement.
/// </summary>
/// <remarks>
/// <para>
/// The schema-id header is managed per record: in header placement any earlier header of the component's name is
/// replaced, and in prefix placement it is removed, so a record that copied headers from another record cannot carry
/// a stale identifier that readers would prefer over the prefix.
/// </para>
/// <para>An instance holds no mutable state and is safe to share across threads and producers.</para>
/// </remarks>
/// <typeparam name="T">The generated Protobuf message type.</typeparam>
public sealed class FramedProtobufSerializer<T> : ISerializer<T>, IAsyncSerializer<T>
    where T : class, IMessage<T>, new()
{
    private static readonly Task<byte[]?> NullResult = Task.FromResult<byte[]?>(null);

    // The magic byte, identifier and path: written in front of the payload, or as the header value.
    private readonly byte[] _schemaIdAndIndexes;
    private readonly int[] _messageIndexPath;

    /// <summary>Creates a serializer that writes <paramref name="schemaId"/> in the record's prefix with zigzag indexes.</summary>
    /// <param name="schemaId">The registered schema's id or GUID.</param>
    /// <exception cref="ArgumentException"><paramref name="schemaId"/> is <see langword="default"/>.</exception>
    public FramedProtobufSerializer(SchemaIdentifier schemaId)
        : this(schemaId, null)
    {
    }

    /// <summary>Creates a serializer with the given placement and index encoding.</summary>
    /// <param name="schemaId">The registered schema's id or GUID.</param>
    /// <param name="options">The options, or <see langword="null"/> for the defaults.</param>
    /// <exception cref="ArgumentException"><paramref name="schemaId"/> is <see langword="default"/>.</exception>
    /// <exception cref="ArgumentOutOfRangeException">An option is not a defined enum value, or the order is <see cref="MessageIndexOrder.EitherByWriterSchema"/> (readers only).</exception>
    public FramedProtobufSerializer(SchemaIdentifier schemaId, FramedSerializerOptions? options)
    {
        options ??= new FramedSerializerOptions();
        new OptionProblems(nameof(FramedSerializerOptions))
            .RequireOneOf(options.SchemaIdPlacement, nameof(options.SchemaIdPlacement), SchemaIdPlacement.Prefix, SchemaIdPlacement.Header)
            .RequireOneOf(options.MessageIndexEncoding, nameof(options.MessageIndexEncoding), MessageIndexEncoding.ZigZag, MessageIndexEncoding.LegacyUnsigned)
            .RequireOneOf(options.MessageIndexOrder, nameof(options.MessageIndexOrder), MessageIndexOrder.RootFirst, MessageIndexOrder.InnermostFirst) // EitherByWriterSchema is for readers
            .ThrowIfAny(nameof(options));

        SchemaId = schemaId;
        SchemaIdPlacement = options.SchemaIdPlacement;
        MessageIndexEncoding = options.MessageIndexEncoding;
        MessageIndexOrder = options.MessageIndexOrder;
        _messageIndexPath = MessageTypePath.Of(new T().Descriptor);
        int[] written = (int[])_messageIndexPath.Clone();
        if (MessageIndexOrder == MessageIndexOrder.InnermostFirst)
        {
            Array.Reverse(written);
        }

        _schemaIdAndIndexes = FrameWriter.ToSchemaIdAndIndexes(schemaId, written, MessageIndexEncoding);
    }

    /// <summary>The schema id or GUID written with every record.</summary>
    public SchemaIdentifier SchemaId { get; }

    /// <summary>Whether the identifier goes in the prefix or in the schema-id header.</summary>
    public SchemaIdPlacement SchemaIdPlacement { get; }

    /// <summary>The varint encoding of the message-index path.</summary>
    public MessageIndexEncoding MessageIndexEncoding { get; }

    /// <summary>The order the path is written in: <see cref="MessageIndexOrder.RootFirst"/> unless a test producer asked otherwise.</summary>
    public MessageIndexOrder MessageIndexOrder { get; }

    /// <summary><typeparamref name="T"/>'s message-index path in its .proto file, top level first (whichever order it is written in).</summary>
    public IReadOnlyList<int> MessageIndexPath => Array.AsReadOnly(_messageIndexPath); // a view: the serializer's own array cannot be reached

    /// <summary>Serializes a key or value; called by the Confluent.Kafka producer for every record.</summary>
    /// <param name="data">The message, or <see langword="null"/> for a tombstone.</param>
    /// <param name="context">The component (key or value), topic and headers; header placement needs the headers.</param>
    /// <returns>The record bytes, or <see langword="null"/> for a null message.</returns>
    /// <exception cref="InvalidOperationException">Header placement and <paramref name="context"/> has no headers collection.</exception>
    public byte[]? Serialize(T? data, SerializationContext context)
    {
        if (data is null)
        {
            return null;
        }

        string headerName = SchemaIdHeaderNames.For(context.Component);
        if (SchemaIdPlacement == SchemaIdPlacement.Header)
        {
            if (context.Headers is null)
            {
                throw new InvalidOperationException(
                    "Header placement writes the schema id to the record's headers, but the serialization context has none. "
                    + "Confluent.Kafka's producer always passes a headers collection; pass one when calling the serializer directly.");
            }

            RemoveSchemaIdHeaders(context.Headers, headerName);
            context.Headers.Add(headerName, (byte[])_schemaIdAndIndexes.Clone());
            return data.ToByteArray();
        }

        RemoveSchemaIdHeaders(context.Headers, headerName);
        int payloadLength = data.CalculateSize();
        byte[] record = new byte[_schemaIdAndIndexes.Length + payloadLength];
        _schemaIdAndIndexes.CopyTo(record, 0);
        data.WriteTo(record.AsSpan(_schemaIdAndIndexes.Length));
        return record;
    }

    private static void RemoveSchemaIdHeaders(Headers? headers, string headerName)
    {
        // Headers.Remove allocates a closure; most records have no such header to remove.
        if (headers is not null && headers.TryGetLastBytes(headerName, out _))
        {
            headers.Remove(headerName);
        }
    }

    /// <summary>Serializes a key or value for producers that take an <see cref="IAsyncSerializer{T}"/>; completes synchronously.</summary>
    /// <param name="data">The message, or <see langword="null"/> for a tombstone.</param>
    /// <param name="context">The component (key or value), topic and headers.</param>
    /// <returns>A completed task with the record bytes, or a faulted one.</returns>
    public Task<byte[]?> SerializeAsync(T? data, SerializationContext context)
    {
        if (data is null)
        {
            return NullResult;
        }

        try
        {
            return Task.FromResult(Serialize(data, context));
        }
        catch (InvalidOperationException e)
        {
            return Task.FromException<byte[]?>(e);
        }
    }
}
