using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf.Reflection;
using KafkaProtobuf.Framing;
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

    /// <summary>Decodes one part.</summary>
    /// <exception cref="OperationCanceledException">Ctrl+C while the schema source was asked.</exception>
    /// <exception cref="Exception">The schema source failed: the tool stops with exit code 3.</exception>
    public async Task<DecodedPart> DecodeAsync(byte[] data, SerializationContext context, bool indented, CancellationToken cancellationToken)
    {
        FramingResult framing = ReadFraming(reader, data, context);
        if (framing.Error is not null || schemas is null)
        {
            return new DecodedPart(framing, null, null, null);
        }

        MessageTypeTable? table = await schemas.FindAsync(framing.SchemaId, cancellationToken).ConfigureAwait(false);
        if (table is null)
        {
            return new DecodedPart(framing, null, null, $"schema {framing.SchemaId} is not known to {schemas.SourceName}");
        }

        MessageDescriptor? type = TypeAt(table, data, context);
        if (type is null)
        {
            return new DecodedPart(framing, null, null, $"message-index path [{string.Join(", ", framing.Path)}] names no message of {table.File.Name}");
        }

        if (!_decoders.TryGetValue(table.File, out ProtoJsonDecoder? decoder))
        {
            decoder = new ProtoJsonDecoder([table.File]);
            _decoders[table.File] = decoder;
        }

        try
        {
            string json = decoder.Decode(type, data.AsSpan(framing.PayloadOffset, framing.PayloadLength), indented);
            return new DecodedPart(framing, type.FullName, json, null);
        }
        catch (PayloadDecodeException e)
        {
            return new DecodedPart(framing, type.FullName, null, $"the payload is not a {type.FullName}: {e.Reason} at byte {framing.PayloadOffset + e.Offset}");
        }
    }

    /// <summary>The type the record's path names in the writer's file, by the library's own walk (the frame is read again: it cannot outlive an await).</summary>
    private MessageDescriptor? TypeAt(MessageTypeTable table, byte[] data, SerializationContext context) =>
        reader.TryRead(data, context, out Frame frame, out _) ? table.Find(frame.MessageIndexPath)?.Writer : null;
}
