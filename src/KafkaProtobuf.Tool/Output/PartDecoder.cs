using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf.Reflection;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Tool.Decoding;
using KafkaProtobuf.Tool.Schemas;

namespace KafkaProtobuf.Tool.Output;

/// <summary>What the framing of one key or value said, or why it could not be read.</summary>
internal sealed record FramingResult(
    SchemaIdentifier SchemaId, SchemaIdPlacement Placement, int[] Path, int PayloadOffset, int PayloadLength, FrameError? Error);

/// <summary>A key or value taken apart: its framing, then its payload decoded from the writer's schema when one is at hand.</summary>
internal sealed record DecodedPart(FramingResult Framing, string? TypeName, string? Json, string? Problem)
{
    /// <summary>True when the part could not be read: bad framing, an unknown type, a payload that does not decode.</summary>
    public bool IsBad => Framing.Error is not null || Problem is not null;
}

/// <summary>Reads the framing of keys and values with this package's <see cref="FrameReader"/>, then decodes their payloads.</summary>
internal sealed class PartDecoder(SchemaSource? schemas, FrameReader reader)
{
    // Per file object, not per file name: two versions of one .proto under different schema ids are different files.
    private readonly Dictionary<FileDescriptor, ProtoJsonDecoder> _decoders = [];

    public static FramingResult ReadFraming(FrameReader reader, byte[] data, SerializationContext context)
    {
        if (reader.TryRead(data, context, out Frame frame, out FrameError error))
        {
            return new FramingResult(frame.SchemaId, frame.SchemaIdPlacement, frame.MessageIndexes.ToArray(), frame.PayloadOffset, frame.Payload.Length, null);
        }

        return new FramingResult(error.SchemaId, default, [], 0, 0, error);
    }

    /// <summary>Decodes one part.</summary>
    /// <exception cref="SchemaRegistryRequestException">The registry could not be asked (not a 404): the tool stops with exit code 3.</exception>
    public async Task<DecodedPart> DecodeAsync(byte[] data, SerializationContext context, bool indented, CancellationToken cancellationToken)
    {
        FramingResult framing = ReadFraming(reader, data, context);
        if (framing.Error is not null || schemas is null)
        {
            return new DecodedPart(framing, null, null, null);
        }

        FileDescriptor file;
        try
        {
            file = await schemas.GetFileAsync(framing.SchemaId, cancellationToken).ConfigureAwait(false);
        }
        catch (SchemaRegistryRequestException e) when (e.StatusCode == 404)
        {
            return new DecodedPart(framing, null, null, $"schema {framing.SchemaId} is not in the registry ({e.Message})");
        }

        MessageDescriptor? type = SchemaSource.Locate(file, framing.Path);
        if (type is null)
        {
            return new DecodedPart(framing, null, null, $"message-index path [{string.Join(", ", framing.Path)}] names no message of {file.Name}");
        }

        if (!_decoders.TryGetValue(file, out ProtoJsonDecoder? decoder))
        {
            decoder = new ProtoJsonDecoder([file]);
            _decoders[file] = decoder;
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

    /// <summary>Writes a part as a JSON object: framing, type and message, or the error and the raw bytes.</summary>
    public static void Write(Utf8JsonWriter writer, DecodedPart part, byte[] data)
    {
        writer.WriteStartObject();
        FramingResult framing = part.Framing;
        if (framing.Error is { } error)
        {
            writer.WriteStartObject("error");
            writer.WriteString("code", error.Code.ToString());
            writer.WriteNumber("offset", error.Offset);
            writer.WriteString("location", error.Location.ToString());
            writer.WriteString("message", error.ToString());
            writer.WriteEndObject();
            writer.WriteBase64String("bytes", data);
            writer.WriteEndObject();
            return;
        }

        WriteSchemaId(writer, framing.SchemaId);
        writer.WriteString("schemaIdIn", framing.Placement == SchemaIdPlacement.Header ? "header" : "prefix");
        writer.WriteStartArray("messageIndexes");
        foreach (int index in framing.Path)
        {
            writer.WriteNumberValue(index);
        }

        writer.WriteEndArray();
        writer.WriteNumber("payloadOffset", framing.PayloadOffset);
        writer.WriteNumber("payloadLength", framing.PayloadLength);
        if (part.TypeName is not null)
        {
            writer.WriteString("type", part.TypeName);
        }

        if (part.Json is not null)
        {
            // Through a document rather than raw text, so an indenting writer indents the message with the rest.
            writer.WritePropertyName("message");
            using JsonDocument message = JsonDocument.Parse(part.Json);
            message.RootElement.WriteTo(writer);
        }

        if (part.Problem is not null)
        {
            writer.WriteStartObject("error");
            writer.WriteString("message", part.Problem);
            writer.WriteEndObject();
            writer.WriteBase64String("bytes", data);
        }

        writer.WriteEndObject();
    }

    public static void WriteSchemaId(Utf8JsonWriter writer, SchemaIdentifier id)
    {
        if (id.Guid is { } guid)
        {
            writer.WriteString("schemaGuid", guid.ToString("D", CultureInfo.InvariantCulture));
        }
        else if (id.Id is { } number)
        {
            writer.WriteNumber("schemaId", number);
        }
    }
}
