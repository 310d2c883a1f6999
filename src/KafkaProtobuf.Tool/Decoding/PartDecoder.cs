using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf.Reflection;
using KafkaProtobuf.Framing;
using KafkaProtobuf.Decoding;
using KafkaProtobuf.Resolution;
using KafkaProtobuf.Tool.Schemas;


namespace KafkaProtobuf.Tool.Decoding;

/// <summary>Reads the framing of keys and values with this package's <see cref="FrameReader"/>, then decodes their payloads to JSON.</summary>
internal sealed class PartDecoder(WriterSchemaLookup? schemas, FrameReader reader)
{
    // Per file object, not per file name: two versions of one .proto under different schema ids are different files.
    private readonly Dictionary<FileDescriptor, ProtoJsonDecoder> _decoders = [];

    public static FramingResult ReadFraming(FrameReader reader, byte[] data, SerializationContext context)
    {
        if (reader.TryRead(data, context, out Frame frame, out FrameError error))
        {
            return new FramingResult(frame.SchemaId, frame.SchemaIdPlacement, frame.MessageIndexPath.ToArray(), frame.PayloadOffset, frame.Payload.Length, null);
        }

        return new FramingResult(error.SchemaId, default, [], 0, 0, error);
    }

    /// <summary>Decodes one part; with <paramref name="expectedType"/>, a part whose path names another type is bad.</summary>
    /// <exception cref="OperationCanceledException">Ctrl+C while the schema source was asked.</exception>
    /// <exception cref="Exception">The schema source failed (an outage, not an answer about the schema): the tool stops with exit code 3.</exception>
    public async Task<DecodedPart> DecodeAsync(byte[] data, SerializationContext context, bool indented, CancellationToken cancellationToken, string? expectedType = null)
    {
        FramingResult framing = ReadFraming(reader, data, context);
        if (framing.Error is not null || schemas is null)
        {
            return new DecodedPart(framing, null, null, null);
        }

        MessageTypeTable? table;
        try
        {
            table = await schemas.FindAsync(framing.SchemaId, cancellationToken).ConfigureAwait(false);
        }
        catch (UnusableSchemaException e)
        {
            return new DecodedPart(framing, null, null, $"schema {framing.SchemaId} cannot be used: {e.Reason}");
        }

        if (table is null)
        {
            return new DecodedPart(framing, null, null, $"schema {framing.SchemaId} is not known to {schemas.SourceName}");
        }

        (MessageDescriptor? type, MessageDescriptor? otherOrderType) = TypesAt(table, data, context);
        if (type is null)
        {
            return new DecodedPart(
                framing, null, null, $"message-index path {MessageIndexPath.Format(framing.Path, framing.Path.Length)} names no message of {table.File.Name}", OtherOrderHint(framing, otherOrderType));
        }

        if (expectedType is not null && type.FullName != expectedType)
        {
            return new DecodedPart(
                framing, type.FullName, null, $"message-index path {MessageIndexPath.Format(framing.Path, framing.Path.Length)} names {type.FullName}, not {expectedType}",
                otherOrderType?.FullName == expectedType ? OtherOrderHint(framing, otherOrderType) : null);
        }

        ProtoJsonDecoder decoder = DecoderFor(table.File);
        try
        {
            string json = decoder.Decode(type, data.AsSpan(framing.PayloadOffset, framing.PayloadLength), indented);
            return new DecodedPart(framing, type.FullName, json, null);
        }
        catch (PayloadDecodeException e)
        {
            // A path read in the wrong order often names a type the payload is not: say so if the other order's type fits it.
            string? hint = otherOrderType is not null && otherOrderType != type && Decodes(decoder, otherOrderType, data, framing) ? OtherOrderHint(framing, otherOrderType) : null;
            return new DecodedPart(framing, type.FullName, null, $"the payload is not a {type.FullName}: {e.Reason} at byte {framing.PayloadOffset + e.Offset}", hint);
        }
    }

    private ProtoJsonDecoder DecoderFor(FileDescriptor file)
    {
        if (!_decoders.TryGetValue(file, out ProtoJsonDecoder? decoder))
        {
            decoder = new ProtoJsonDecoder([file]);
            _decoders[file] = decoder;
        }

        return decoder;
    }

    private static bool Decodes(ProtoJsonDecoder decoder, MessageDescriptor type, byte[] data, FramingResult framing)
    {
        try
        {
            decoder.Decode(type, data.AsSpan(framing.PayloadOffset, framing.PayloadLength), indented: false);
            return true;
        }
        catch (PayloadDecodeException)
        {
            return false;
        }
    }

    /// <summary>
    /// The hint for a record whose path, read in the other order, names <paramref name="otherOrderType"/>: it may come
    /// from Confluent's .NET serializer 2.10.1 to 2.11.0, which wrote nested types' paths innermost first.
    /// </summary>
    private string? OtherOrderHint(FramingResult framing, MessageDescriptor? otherOrderType)
    {
        if (otherOrderType is null)
        {
            return null;
        }

        bool innermostFirst = reader.MessageIndexOrder == MessageIndexOrder.InnermostFirst;
        string otherPath = MessageIndexPath.Format([.. System.Linq.Enumerable.Reverse(framing.Path)], framing.Path.Length);
        return innermostFirst
            ? $"read root first, as the format has it, the path is {otherPath}, which names {otherOrderType.FullName}: this record was not written by Confluent's .NET serializer 2.10.1 to 2.11.0; read it without --message-index-order innermost-first"
            : $"read innermost first, the path is {otherPath}, which names {otherOrderType.FullName}: the record may come from Confluent's .NET serializer 2.10.1 to 2.11.0, which wrote nested types' paths innermost first; read it with --message-index-order innermost-first";
    }

    /// <summary>
    /// The type the record's path names in the writer's file, by the library's own walk, and the one it names read in the
    /// other order when that differs (the frame is read again: it cannot outlive an await).
    /// </summary>
    private (MessageDescriptor? Type, MessageDescriptor? OtherOrderType) TypesAt(MessageTypeTable table, byte[] data, SerializationContext context)
    {
        if (!reader.TryRead(data, context, out Frame frame, out _))
        {
            return (null, null);
        }

        MessageTypeTable.Node? node = table.Find(frame.MessageIndexPath);
        return (node?.Writer, table.FindInOtherOrder(frame.MessageIndexPath, node)?.Writer);
    }
}
