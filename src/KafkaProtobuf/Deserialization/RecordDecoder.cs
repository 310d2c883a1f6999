using System;
using System.Collections.Generic;
using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf.Descriptors;
using KafkaProtobuf.Diagnostics;
using KafkaProtobuf.Framing;
using KafkaProtobuf.Resolution;

namespace KafkaProtobuf.Deserialization;

/// <summary>
/// The pipeline every deserializer runs on a record: read the framing, find the type the path names (when the writer's
/// schema is asked for), parse, count; or report what was wrong, where, and what else is known. Both public
/// deserializers wrap one; a feature of record decoding is written here once.
/// </summary>
/// <typeparam name="T">What the deserializer returns: its message type, or <see cref="IMessage"/>.</typeparam>
/// <typeparam name="TParser">How the payload is parsed: as the deserializer's own type, or as the writer's type.</typeparam>
internal sealed class RecordDecoder<T, TParser> : ISpanDeserializer<T>
    where T : class
    where TParser : struct, IPayloadParser<T>
{
    private readonly FrameReader _reader;
    private readonly TParser _parser;

    // The writer's file names each record's type (multi-type; typed with VerifyWriterType by name or VerifyCompatibility).
    private readonly WriterSchemaResolver? _writerSchemas;

    // Typed VerifyWriterType without the writer's files: the type's own path in its generated file.
    private readonly int[]? _ownPath;

    // The single type a typed deserializer expects (its metric tag and its name in messages); default for multi-type.
    private readonly KeyValuePair<string, object?> _ownTypeTag;

    // The code for a path naming a type other than those given: UnexpectedMessageType (typed) or UnregisteredMessageType.
    private readonly FrameErrorCode _otherTypeCode;
    private readonly bool _skipOtherTypes;

    // MessageIndexOrder.EitherByWriterSchema: the reader reads paths root first, the writer's file decides per record.
    private readonly bool _eitherOrder;

    private RecordDecoder(
        FramingOptions framing, TParser parser, WriterSchemaResolver? writerSchemas, int[]? ownPath, KeyValuePair<string, object?> ownTypeTag, FrameErrorCode otherTypeCode, bool skipOtherTypes)
    {
        _reader = framing.CreateReader();
        _eitherOrder = framing.MessageIndexOrder == MessageIndexOrder.EitherByWriterSchema;
        _parser = parser;
        _writerSchemas = writerSchemas;
        _ownPath = ownPath;
        _ownTypeTag = ownTypeTag;
        _otherTypeCode = otherTypeCode;
        _skipOtherTypes = skipOtherTypes;
    }

    internal FrameReader FrameReader => _reader;

    /// <summary>A decoder for one message type (<see cref="FramedProtobufDeserializer{T}"/>).</summary>
    internal static RecordDecoder<T, TParser> ForType(TParser parser, MessageDescriptor type, FramedDeserializerOptions options)
    {
        WriterSchemaOptions schemas = options.WriterSchemas;
        if (schemas.VerifyCompatibility && !schemas.KnowsWriterFiles)
        {
            throw new ArgumentException("WriterSchemas.VerifyCompatibility compares with the writer's schema, which needs WriterSchemas.Source or WriterSchemas.Files.", nameof(options));
        }

        // Deciding the path's order needs a file to look both readings up in: without the writer's, the type's own file
        // (the assumption VerifyWriterType's own-path comparison makes anyway).
        bool eitherOrder = options.Framing.MessageIndexOrder == MessageIndexOrder.EitherByWriterSchema;
        bool byWriterSchema = (schemas.KnowsWriterFiles || eitherOrder) && (options.VerifyWriterType || schemas.VerifyCompatibility);
        return new RecordDecoder<T, TParser>(
            options.Framing,
            parser,
            byWriterSchema ? new WriterSchemaResolver([type], schemas) : null,
            !byWriterSchema && options.VerifyWriterType ? MessageTypePath.Of(type) : null,
            KafkaProtobufMetrics.TypeTag(type.FullName),
            FrameErrorCode.UnexpectedMessageType,
            skipOtherTypes: false);
    }

    /// <summary>A decoder for several message types (<see cref="MultiTypeProtobufDeserializer"/>).</summary>
    internal static RecordDecoder<T, TParser> ForTypes(IReadOnlyCollection<MessageDescriptor> types, MultiTypeDeserializerOptions options) =>
        new(
            options.Framing,
            default,
            new WriterSchemaResolver(types, options.WriterSchemas),
            null,
            default,
            FrameErrorCode.UnregisteredMessageType,
            options.UnregisteredMessageTypes == UnregisteredMessageTypeHandling.Skip);

    /// <summary>Asks the writer's schema source for identifiers ahead of their first records: those it does not know.</summary>
    /// <exception cref="InvalidOperationException">The decoder does not read writer's schemas from a source.</exception>
    internal Task<IReadOnlyList<SchemaIdentifier>> WarmUpAsync(IEnumerable<SchemaIdentifier> schemaIds, CancellationToken cancellationToken)
    {
        if (schemaIds is null)
        {
            throw new ArgumentNullException(nameof(schemaIds));
        }

        if (_writerSchemas is null || !_writerSchemas.HasSource)
        {
            throw new InvalidOperationException("This deserializer reads no writer's schemas from a source: give WriterSchemas.Source (and, for a typed deserializer, VerifyWriterType or WriterSchemas.VerifyCompatibility).");
        }

        return _writerSchemas.WarmUpAsync(schemaIds, cancellationToken);
    }

    /// <summary>A deserializer's <c>Deserialize</c>: a tombstone is <see langword="null"/>, bad data throws.</summary>
    /// <exception cref="InvalidFrameException">Bad data.</exception>
    /// <exception cref="SchemaUnavailableException">The writer's schema source failed: not bad data.</exception>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public T? Deserialize(ReadOnlySpan<byte> data, bool isNull, SerializationContext context)
    {
        if (isNull)
        {
            return null;
        }

        if (!TryDecode(data, context, out Frame frame, out T? message, out FrameError error, out MessageTypeTable? table, out Exception? cause))
        {
            Throw(frame, error, table, context, cause);
        }

        return message;
    }

    /// <summary>A deserializer's <c>TryDeserialize</c>: a tombstone is <see langword="null"/>, bad data a <paramref name="error"/>.</summary>
    /// <exception cref="SchemaUnavailableException">The writer's schema source failed: not bad data.</exception>
    internal bool TryDeserialize(ReadOnlySpan<byte> data, bool isNull, SerializationContext context, out T? message, out FrameError error)
    {
        if (isNull)
        {
            message = null;
            error = default;
            return true;
        }

        return TryDecode(data, context, out _, out message, out error, out _, out _);
    }

    /// <summary>Decodes one record; on failure says what was wrong and keeps what the message for it needs.</summary>
    /// <exception cref="SchemaUnavailableException">The writer's schema source failed: not bad data.</exception>
    private bool TryDecode(
        ReadOnlySpan<byte> data, SerializationContext context, out Frame frame, out T? message, out FrameError error, out MessageTypeTable? table, out Exception? cause)
    {
        message = null;
        table = null;
        cause = null;
        if (!_reader.TryRead(data, context, out frame, out error))
        {
            KafkaProtobufMetrics.Failed(error.Code);
            return false;
        }

        MessageTypeTable.Node? node = null;
        FrameErrorCode code = FrameErrorCode.None;
        if (_writerSchemas is not null)
        {
            table = _writerSchemas.Find(frame.SchemaId, context, out UnusableSchemaException? unusable);
            node = FindType(table, frame.MessageIndexPath, out MessageTypeTable.Node? otherReading);
            if (node is { Reader: null } && _skipOtherTypes && otherReading is null)
            {
                message = (T)(object)node.Skipped;
                KafkaProtobufMetrics.Skipped(node.TypeTag);
                return true;
            }

            cause = unusable;
            code = unusable is not null ? FrameErrorCode.UnusableWriterSchema
                : table is null ? FrameErrorCode.UnknownSchemaId
                : otherReading is not null ? FrameErrorCode.AmbiguousMessageIndexOrder
                : node is null ? FrameErrorCode.UnknownMessageType
                : node.Reader is null ? _otherTypeCode
                : node.Incompatibility is not null ? FrameErrorCode.IncompatibleWriterSchema
                : FrameErrorCode.None;
        }
        else if (_ownPath is not null && !frame.MessageIndexPath.SequenceEqual(_ownPath))
        {
            code = FrameErrorCode.UnexpectedMessageType;
        }

        if (code != FrameErrorCode.None)
        {
            error = new FrameError(code, frame.MessageIndexPathOffset, frame.SchemaIdLocation, frame.SchemaId);
            KafkaProtobufMetrics.Failed(code);
            return false;
        }

        try
        {
            message = _parser.Parse(node, frame.Payload);
        }
        catch (InvalidProtocolBufferException e)
        {
            cause = e;
            error = new FrameError(FrameErrorCode.InvalidPayload, frame.PayloadOffset, FrameErrorLocation.RecordData, frame.SchemaId);
            KafkaProtobufMetrics.Failed(error.Code);
            return false;
        }

        KafkaProtobufMetrics.Deserialized(node is null ? _ownTypeTag : node.TypeTag, data.Length);
        return true;
    }

    /// <summary>The writer's type the path names, in the order the options say; <paramref name="otherReading"/> when that is ambiguous.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private MessageTypeTable.Node? FindType(MessageTypeTable? table, MessageIndexPath path, out MessageTypeTable.Node? otherReading)
    {
        otherReading = null;
        return table is null ? null
            : _eitherOrder ? table.FindEitherOrder(path, out otherReading)
            : table.Find(path);
    }

    /// <summary>Throws what <see cref="TryDecode"/> found, with what else is known about it (off the hot path).</summary>
    [DoesNotReturn]
    private void Throw(in Frame frame, in FrameError error, MessageTypeTable? table, SerializationContext context, Exception? cause) =>
        ThrowHelper.ThrowInvalidFrame(error, context, frame, Detail(frame, error.Code, table), cause);

    private string? Detail(in Frame frame, FrameErrorCode code, MessageTypeTable? table)
    {
        if (FrameErrorCodes.StageOf(code) != FrameErrorCodes.Stage.Resolution)
        {
            return null;
        }

        MessageTypeTable.Node? node = FindType(table, frame.MessageIndexPath, out MessageTypeTable.Node? otherReading);
        string expected = _ownTypeTag.Value is string name ? ", expected " + name : string.Empty;
        return code switch
        {
            FrameErrorCode.UnknownSchemaId => _writerSchemas!.HasSource
                ? "the writer's schema source does not know the identifier"
                : "the identifier is not in WriterSchemas.Files; map it to its .proto file there, or give a WriterSchemas.Source",
            FrameErrorCode.UnknownMessageType => "the path is read in " + table!.File.Name,
            FrameErrorCode.UnexpectedMessageType when table is null => "expected " + _ownTypeTag.Value + " at [" + string.Join(", ", _ownPath!) + "]",
            FrameErrorCode.UnexpectedMessageType or FrameErrorCode.UnregisteredMessageType => "the record is a " + node!.Writer.FullName + expected,
            FrameErrorCode.IncompatibleWriterSchema => node!.Incompatibility,
            FrameErrorCode.AmbiguousMessageIndexOrder =>
                "read top level first, " + frame.MessageIndexPath.ToString() + " is " + node!.Writer.FullName + "; read innermost first, "
                + frame.MessageIndexPath.Reversed().ToString() + " is " + otherReading!.Writer.FullName
                + "; read the topic with MessageIndexOrder.RootFirst or InnermostFirst if it holds one layout only",
            _ => null,
        };
    }
}

/// <summary>How a <see cref="RecordDecoder{T, TParser}"/> parses a payload; a struct, so the call is specialized and inlined.</summary>
/// <typeparam name="T">What the deserializer returns.</typeparam>
internal interface IPayloadParser<T>
    where T : class
{
    /// <summary>Parses the payload; <paramref name="writerType"/> is the type the path named, when the writer's schema was asked.</summary>
    /// <exception cref="InvalidProtocolBufferException">The payload is not a valid message.</exception>
    T Parse(MessageTypeTable.Node? writerType, ReadOnlySpan<byte> payload);
}

/// <summary>Parses as the deserializer's own type, with its parser (which may discard unknown fields or carry extensions).</summary>
internal readonly struct OwnTypeParser<T> : IPayloadParser<T>
    where T : class, IMessage<T>
{
    private readonly MessageParser<T> _parser;

    internal OwnTypeParser(MessageParser<T> parser) => _parser = parser;

    public T Parse(MessageTypeTable.Node? writerType, ReadOnlySpan<byte> payload) => _parser.ParseFrom(payload);
}

/// <summary>Parses as the reader's type of the writer's type the path named.</summary>
internal readonly struct WriterTypeParser : IPayloadParser<IMessage>
{
    public IMessage Parse(MessageTypeTable.Node? writerType, ReadOnlySpan<byte> payload) => writerType!.Parser!.ParseFrom(payload);
}
