using System.Globalization;
using System.Linq;
using System.Text;
using System.Text.Json;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;

namespace KafkaProtobuf.Tool.Output;

/// <summary>A record's headers as JSON, and this package's dead-letter headers read back as what they say.</summary>
internal static class RecordHeaders
{
    private static readonly UTF8Encoding StrictUtf8 = new(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: true);

    public static void Write(Utf8JsonWriter writer, Headers headers)
    {
        writer.WriteStartArray("headers");
        foreach (IHeader header in headers)
        {
            writer.WriteStartObject();
            writer.WriteString("key", header.Key);
            byte[] value = header.GetValueBytes();
            if (value is null)
            {
                writer.WriteNull("value");
            }
            else if (TryText(value, out string? text))
            {
                writer.WriteString("value", text);
            }
            else
            {
                writer.WriteBase64String("base64", value);
            }

            writer.WriteEndObject();
        }

        writer.WriteEndArray();

        if (headers.TryGetLastBytes(DeadLetterHeaderNames.ErrorCode, out byte[] code))
        {
            writer.WriteStartObject("deadLetter");
            writer.WriteString("errorCode", Text(code));
            WriteIfPresent(writer, headers, "errorOffset", DeadLetterHeaderNames.ErrorOffset, number: true);
            WriteIfPresent(writer, headers, "component", DeadLetterHeaderNames.Component, number: false);
            WriteIfPresent(writer, headers, "errorMessage", DeadLetterHeaderNames.ErrorMessage, number: false);
            WriteIfPresent(writer, headers, "sourceTopic", DeadLetterHeaderNames.SourceTopic, number: false);
            WriteIfPresent(writer, headers, "sourcePartition", DeadLetterHeaderNames.SourcePartition, number: true);
            WriteIfPresent(writer, headers, "sourceOffset", DeadLetterHeaderNames.SourceOffset, number: true);
            writer.WriteEndObject();
        }
    }

    private static void WriteIfPresent(Utf8JsonWriter writer, Headers headers, string property, string header, bool number)
    {
        if (!headers.TryGetLastBytes(header, out byte[] bytes))
        {
            return;
        }

        string text = Text(bytes);
        if (number && long.TryParse(text, NumberStyles.Integer, CultureInfo.InvariantCulture, out long value))
        {
            writer.WriteNumber(property, value);
        }
        else
        {
            writer.WriteString(property, text);
        }
    }

    private static string Text(byte[] bytes) => TryText(bytes, out string? text) ? text : System.Convert.ToBase64String(bytes);

    private static bool TryText(byte[] bytes, [System.Diagnostics.CodeAnalysis.NotNullWhen(true)] out string? text)
    {
        try
        {
            text = StrictUtf8.GetString(bytes);
            return text.All(c => !char.IsControl(c) || c is '\t' or '\n' or '\r');
        }
        catch (DecoderFallbackException)
        {
            text = null;
            return false;
        }
    }
}
