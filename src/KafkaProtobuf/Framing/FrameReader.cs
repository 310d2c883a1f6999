using System;
using System.Buffers.Binary;
using Confluent.Kafka;

namespace KafkaProtobuf.Framing;

/// <summary>
/// Reads Schema Registry framing from a record's key or value: magic byte <c>0x00</c> and a 4-byte big-endian schema id,
/// or <c>0x01</c> and a 16-byte big-endian GUID; then the message-index path; then the Protobuf payload. The identifier
/// and path come from the component's schema-id header instead when the record has one (unless
/// <see cref="SchemaIdLookup.PrefixOnly"/>). Allocates nothing; an instance is immutable and thread-safe.
/// </summary>
/// <remarks>
/// The <c>TryRead</c> methods report bad input as a <see cref="FrameError"/> and never throw for it; the
/// <c>Read</c> methods are built on them and throw <see cref="InvalidFrameException"/>.
/// </remarks>
public sealed class FrameReader
{
    private const byte MagicSchemaId = 0x00;
    private const byte MagicSchemaGuid = 0x01;
    private const int SchemaIdLength = 4;
    private const int SchemaGuidLength = 16;

    private readonly byte _pathForm;

    /// <summary>Creates a reader for the current format: zigzag message indexes, schema-id header before prefix.</summary>
    public FrameReader()
        : this(new FramingOptions())
    {
    }

    /// <summary>Creates a reader for a framing variant.</summary>
    /// <param name="options">The variant; its values are copied.</param>
    /// <exception cref="ArgumentNullException"><paramref name="options"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentOutOfRangeException">A value is not defined.</exception>
    /// <exception cref="ArgumentException">
    /// <see cref="MessageIndexPresence.Absent"/> with <see cref="MessageIndexEncoding.LegacyUnsigned"/> or with a
    /// <see cref="MessageIndexOrder"/> other than <see cref="MessageIndexOrder.RootFirst"/>: there are no indexes to
    /// encode or order. Or <see cref="MessageIndexOrder.EitherByWriterSchema"/>, which only a deserializer, knowing the
    /// writer's schema, can apply.
    /// </exception>
    public FrameReader(FramingOptions options)
        : this(options, allowEitherOrder: false)
    {
    }

    /// <summary>A reader for a deserializer, which may decide the order per record: paths are then read root first.</summary>
    internal FrameReader(FramingOptions options, bool allowEitherOrder)
    {
        if (options is null)
        {
            throw new ArgumentNullException(nameof(options));
        }

        new OptionProblems(nameof(FramingOptions))
            .RequireOneOf(options.MessageIndexPresence, nameof(options.MessageIndexPresence), MessageIndexPresence.Present, MessageIndexPresence.Absent)
            .RequireOneOf(options.MessageIndexEncoding, nameof(options.MessageIndexEncoding), MessageIndexEncoding.ZigZag, MessageIndexEncoding.LegacyUnsigned)
            .RequireOneOf(options.SchemaIdLookup, nameof(options.SchemaIdLookup), SchemaIdLookup.HeaderThenPrefix, SchemaIdLookup.PrefixOnly)
            .RequireOneOf(options.MessageIndexOrder, nameof(options.MessageIndexOrder), MessageIndexOrder.RootFirst, MessageIndexOrder.InnermostFirst, MessageIndexOrder.EitherByWriterSchema)
            .Refuse(
                options.MessageIndexPresence == MessageIndexPresence.Absent && options.MessageIndexEncoding == MessageIndexEncoding.LegacyUnsigned,
                "MessageIndexPresence.Absent cannot be combined with MessageIndexEncoding.LegacyUnsigned: records without message indexes have no encoding to choose.")
            .Refuse(
                options.MessageIndexPresence == MessageIndexPresence.Absent && options.MessageIndexOrder != MessageIndexOrder.RootFirst,
                "MessageIndexPresence.Absent cannot be combined with MessageIndexOrder." + options.MessageIndexOrder + ": records without message indexes have no order to choose.")
            .Refuse(
                options.MessageIndexOrder == MessageIndexOrder.EitherByWriterSchema && !allowEitherOrder,
                "MessageIndexOrder.EitherByWriterSchema is decided per record by the writer's schema, which a FrameReader does not know: use it with a deserializer, or read with RootFirst or InnermostFirst.")
            .ThrowIfAny(nameof(options));

        SchemaIdLookup = options.SchemaIdLookup;
        MessageIndexEncoding = options.MessageIndexEncoding;
        MessageIndexPresence = options.MessageIndexPresence;
        MessageIndexOrder = options.MessageIndexOrder == MessageIndexOrder.InnermostFirst ? MessageIndexOrder.InnermostFirst : MessageIndexOrder.RootFirst;
        _pathForm = MessageIndexPath.Form(MessageIndexEncoding, MessageIndexOrder == MessageIndexOrder.InnermostFirst);
    }

    /// <summary>A shared reader for the current format: zigzag message indexes, schema-id header before prefix.</summary>
    public static FrameReader Default { get; } = new();

    /// <summary>Whether this reader consults schema-id headers.</summary>
    public SchemaIdLookup SchemaIdLookup { get; }

    /// <summary>How this reader decodes message indexes.</summary>
    public MessageIndexEncoding MessageIndexEncoding { get; }

    /// <summary>Whether records carry a message-index path (<see cref="MessageIndexPresence.Present"/>, the default).</summary>
    public MessageIndexPresence MessageIndexPresence { get; }

    /// <summary>
    /// In which order this reader takes paths to be written: <see cref="MessageIndexOrder.RootFirst"/> (the default) or
    /// <see cref="MessageIndexOrder.InnermostFirst"/>. Either way <see cref="Frame.MessageIndexPath"/> is top level first.
    /// </summary>
    public MessageIndexOrder MessageIndexOrder { get; }

    /// <summary>
    /// Reads a record component, taking the schema identifier from the component's schema-id header in
    /// <paramref name="context"/> when there is one (the last header of that name wins), from the prefix otherwise.
    /// </summary>
    /// <param name="data">The key or value bytes.</param>
    /// <param name="context">The component (key or value), topic and headers, as Confluent.Kafka passes them to deserializers.</param>
    /// <param name="frame">The frame, when the data is valid.</param>
    /// <param name="error">What was wrong, when it is not.</param>
    /// <returns><see langword="true"/> when the data is valid framing.</returns>
    public bool TryRead(ReadOnlySpan<byte> data, SerializationContext context, out Frame frame, out FrameError error)
    {
        if (SchemaIdLookup == SchemaIdLookup.HeaderThenPrefix
            && context.Headers is { } headers
            && headers.TryGetLastBytes(SchemaIdHeaderNames.For(context.Component), out byte[] headerValue))
        {
            return TryReadWithSchemaIdHeader(data, headerValue, out frame, out error);
        }

        return TryReadPrefixed(data, out frame, out error);
    }

    /// <summary>Reads a record component whose schema identifier and path are in its prefix.</summary>
    /// <param name="data">The key or value bytes.</param>
    /// <param name="frame">The frame, when the data is valid.</param>
    /// <param name="error">What was wrong, when it is not.</param>
    /// <returns><see langword="true"/> when the data is valid framing.</returns>
    public bool TryReadPrefixed(ReadOnlySpan<byte> data, out Frame frame, out FrameError error)
    {
        int position = 0;
        FrameErrorCode code = ReadSchemaId(data, ref position, out SchemaIdentifier schemaId);
        if (code == FrameErrorCode.None)
        {
            code = ReadMessageIndexes(data, ref position, out MessageIndexPath path);
            if (code == FrameErrorCode.None)
            {
                frame = new Frame(schemaId, SchemaIdPlacement.Prefix, path, data.Slice(position), position);
                error = default;
                return true;
            }
        }

        frame = default;
        error = new FrameError(code, position, FrameErrorLocation.RecordData, schemaId);
        return false;
    }

    /// <summary>
    /// Reads a record component whose schema identifier and path are in a schema-id header value; the data is then the
    /// bare Protobuf payload (possibly empty).
    /// </summary>
    /// <param name="data">The key or value bytes: the payload.</param>
    /// <param name="schemaIdHeaderValue">The header value: magic byte, identifier, message-index path, nothing else.</param>
    /// <param name="frame">The frame, when both are valid.</param>
    /// <param name="error">What was wrong, when they are not.</param>
    /// <returns><see langword="true"/> when the header value is valid.</returns>
    public bool TryReadWithSchemaIdHeader(ReadOnlySpan<byte> data, ReadOnlySpan<byte> schemaIdHeaderValue, out Frame frame, out FrameError error)
    {
        int position = 0;
        FrameErrorCode code = ReadSchemaId(schemaIdHeaderValue, ref position, out SchemaIdentifier schemaId);
        if (code == FrameErrorCode.None)
        {
            code = ReadMessageIndexes(schemaIdHeaderValue, ref position, out MessageIndexPath path);
            if (code == FrameErrorCode.None)
            {
                if (position == schemaIdHeaderValue.Length)
                {
                    frame = new Frame(schemaId, SchemaIdPlacement.Header, path, data, 0);
                    error = default;
                    return true;
                }

                code = FrameErrorCode.TrailingHeaderBytes;
            }
        }

        frame = default;
        error = new FrameError(code, position, FrameErrorLocation.SchemaIdHeader, schemaId);
        return false;
    }

    /// <summary>Like <see cref="TryRead(ReadOnlySpan{byte}, SerializationContext, out Frame, out FrameError)"/>, but throws for bad data.</summary>
    /// <param name="data">The key or value bytes.</param>
    /// <param name="context">The component, topic and headers.</param>
    /// <returns>The frame.</returns>
    /// <exception cref="InvalidFrameException">The data (or its schema-id header) is not valid framing.</exception>
    public Frame Read(ReadOnlySpan<byte> data, SerializationContext context)
    {
        if (!TryRead(data, context, out Frame frame, out FrameError error))
        {
            ThrowHelper.ThrowInvalidFrame(error, context);
        }

        return frame;
    }

    /// <summary>Like <see cref="TryReadPrefixed"/>, but throws for bad data.</summary>
    /// <param name="data">The key or value bytes.</param>
    /// <returns>The frame.</returns>
    /// <exception cref="InvalidFrameException">The data is not valid framing.</exception>
    public Frame ReadPrefixed(ReadOnlySpan<byte> data)
    {
        if (!TryReadPrefixed(data, out Frame frame, out FrameError error))
        {
            ThrowHelper.ThrowInvalidFrame(error);
        }

        return frame;
    }

    /// <summary>Like <see cref="TryReadWithSchemaIdHeader"/>, but throws for bad data.</summary>
    /// <param name="data">The key or value bytes: the payload.</param>
    /// <param name="schemaIdHeaderValue">The header value.</param>
    /// <returns>The frame.</returns>
    /// <exception cref="InvalidFrameException">The header value is not valid framing.</exception>
    public Frame ReadWithSchemaIdHeader(ReadOnlySpan<byte> data, ReadOnlySpan<byte> schemaIdHeaderValue)
    {
        if (!TryReadWithSchemaIdHeader(data, schemaIdHeaderValue, out Frame frame, out FrameError error))
        {
            ThrowHelper.ThrowInvalidFrame(error);
        }

        return frame;
    }

    /// <summary>Reads the magic byte and the identifier it announces. On failure <paramref name="position"/> is the fault's offset.</summary>
    private static FrameErrorCode ReadSchemaId(ReadOnlySpan<byte> source, scoped ref int position, out SchemaIdentifier schemaId)
    {
        schemaId = default;
        if (source.IsEmpty)
        {
            return FrameErrorCode.EmptyData;
        }

        switch (source[0])
        {
            case MagicSchemaId:
                position = 1;
                if (source.Length < 1 + SchemaIdLength)
                {
                    return FrameErrorCode.TruncatedSchemaId;
                }

                schemaId = SchemaIdentifier.FromId(BinaryPrimitives.ReadInt32BigEndian(source.Slice(1)));
                position = 1 + SchemaIdLength;
                return FrameErrorCode.None;

            case MagicSchemaGuid:
                position = 1;
                if (source.Length < 1 + SchemaGuidLength)
                {
                    return FrameErrorCode.TruncatedSchemaId;
                }

                schemaId = SchemaIdentifier.FromGuid(BigEndianGuid.Read(source.Slice(1, SchemaGuidLength)));
                position = 1 + SchemaGuidLength;
                return FrameErrorCode.None;

            default:
                return FrameErrorCode.UnknownMagicByte;
        }
    }

    /// <summary>Reads and validates the message-index path. On failure <paramref name="position"/> is the fault's offset.</summary>
    private FrameErrorCode ReadMessageIndexes(ReadOnlySpan<byte> source, scoped ref int position, out MessageIndexPath path)
    {
        path = default; // [0]
        if (MessageIndexPresence == MessageIndexPresence.Absent)
        {
            return FrameErrorCode.None; // the payload follows the schema id
        }

        byte form = _pathForm; // the encoding and the order in one value: one register through the loop

        FrameErrorCode code = Varint.TryRead(source, position, out uint rawCount, out int length);
        if (code != FrameErrorCode.None)
        {
            return code;
        }

        int count = Varint.Decode(rawCount, MessageIndexPath.EncodingOf(form));
        if (count < 0)
        {
            return FrameErrorCode.NegativeMessageIndexCount;
        }

        if (count > source.Length - position - length)
        {
            return FrameErrorCode.MessageIndexCountExceedsData;
        }

        position += length;
        int indexesStart = position;
        for (int i = 0; i < count; i++)
        {
            code = Varint.TryRead(source, position, out uint rawIndex, out length);
            if (code != FrameErrorCode.None)
            {
                return code;
            }

            if (Varint.Decode(rawIndex, MessageIndexPath.EncodingOf(form)) < 0)
            {
                return FrameErrorCode.NegativeMessageIndex;
            }

            position += length;
        }

        path = new MessageIndexPath(source.Slice(indexesStart, position - indexesStart), count, form);
        return FrameErrorCode.None;
    }
}
