using System.Globalization;
using System.Text.Json;
using KafkaProtobuf.Decoding;
using KafkaProtobuf.Tool.Schemas;

namespace KafkaProtobuf.Tool.Output;

/// <summary>A decoded key or value as the JSON object <c>consume</c> prints: framing, type and message, or the error and the raw bytes.</summary>
internal static class PartJson
{
    // The decoder nests at most 100 messages, each at most two JSON levels (a repeated field's array and its object):
    // deeper than JsonDocument's default of 64, well within this and the writer's 1,000.
    private static readonly JsonDocumentOptions ReadBack = new() { MaxDepth = 512 };

    public static void Write(Utf8JsonWriter writer, ShownPart shown, byte[] data)
    {
        DecodedPart part = shown.Part;
        writer.WriteStartObject();
        if (!part.IsFramed)
        {
            FrameError error = part.Error!.Value;
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

        WriteSchemaId(writer, part.SchemaId);
        writer.WriteString("schemaIdIn", part.SchemaIdPlacement == SchemaIdPlacement.Header ? "header" : "prefix");
        writer.WriteStartArray("messageIndexes");
        foreach (int index in part.MessageIndexPath)
        {
            writer.WriteNumberValue(index);
        }

        writer.WriteEndArray();
        writer.WriteNumber("payloadOffset", part.PayloadOffset);
        writer.WriteNumber("payloadLength", part.PayloadLength);
        if (part.WriterType is { } type)
        {
            writer.WriteString("type", type.FullName);
        }

        if (part.Json is not null)
        {
            // Through a document rather than raw text, so an indenting writer indents the message with the rest.
            writer.WritePropertyName("message");
            using JsonDocument message = JsonDocument.Parse(part.Json, ReadBack);
            message.RootElement.WriteTo(writer);
        }

        if (part.Error is { } problem)
        {
            writer.WriteStartObject("error");
            writer.WriteString("code", problem.Code.ToString());
            writer.WriteString("message", part.ErrorMessage);
            writer.WriteEndObject();
            writer.WriteBase64String("bytes", data);
        }

        if (shown.Hint is not null)
        {
            writer.WriteString("hint", shown.Hint);
        }

        writer.WriteEndObject();
    }

    private static void WriteSchemaId(Utf8JsonWriter writer, SchemaIdentifier id)
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
