using System.Globalization;
using System.Text.Json;
using KafkaProtobuf.Decoding;
using KafkaProtobuf.Tool.Decoding;

namespace KafkaProtobuf.Tool.Output;

/// <summary>A decoded key or value as the JSON object <c>consume</c> prints: framing, type and message, or the error and the raw bytes.</summary>
internal static class PartJson
{
    // The decoder nests at most WireReader.MaxDepth messages, each at most two JSON levels (a repeated field's array and
    // its object): deeper than JsonDocument's default of 64, well within this and the writer's 1,000.
    private static readonly JsonDocumentOptions ReadBack = new() { MaxDepth = 512 };

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
            using JsonDocument message = JsonDocument.Parse(part.Json, ReadBack);
            message.RootElement.WriteTo(writer);
        }

        if (part.Problem is not null)
        {
            writer.WriteStartObject("error");
            writer.WriteString("message", part.Problem);
            writer.WriteEndObject();
            writer.WriteBase64String("bytes", data);
        }

        if (part.Hint is not null)
        {
            writer.WriteString("hint", part.Hint);
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
