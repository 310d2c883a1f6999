using System.Globalization;
using System.Linq;
using System.Text;
using System.Text.Json;
using Confluent.Kafka;
using System.Collections.Generic;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Redrive;

namespace KafkaProtobuf.Tool.Output;

/// <summary>A record's headers as JSON, and this package's dead-letter headers read back as what they say.</summary>
internal static class RecordHeaders
{
    private static readonly UTF8Encoding StrictUtf8 = new(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: true);

    /// <summary>
    /// The record's headers, then, for a dead letter this package wrote, what its writer recorded and how far that is
    /// believed, as the codec read it (<see cref="ProvenanceCodec.Read"/>: never what the record's own headers claim).
    /// </summary>
    public static void Write(Utf8JsonWriter writer, DeadLetter deadLetter)
    {
        ConsumeResult<byte[], byte[]> record = deadLetter.Record;
        writer.WriteStartArray("headers");
        foreach (IHeader header in (IEnumerable<IHeader>?)record.Message.Headers ?? [])
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

        if (deadLetter.ErrorCode is not null || deadLetter.Provenance == ProvenanceStatus.Unverified)
        {
            writer.WriteStartObject("deadLetter");
            writer.WriteString("provenance", deadLetter.Provenance.ToString().ToLowerInvariant()); // none, unchecked, verified, unverified
            writer.WriteString("source", deadLetter.DescribeSource());
            WriteIfPresent(writer, "errorCode", deadLetter.ErrorCode);
            if (deadLetter.ErrorOffset is { } errorOffset)
            {
                writer.WriteNumber("errorOffset", errorOffset);
            }

            WriteIfPresent(writer, "component", deadLetter.Component);
            WriteIfPresent(writer, "errorMessage", deadLetter.ErrorMessage);
            WriteIfPresent(writer, "sourceTopic", deadLetter.SourceTopic);
            if (deadLetter.SourcePartition is { } partition)
            {
                writer.WriteNumber("sourcePartition", partition);
            }

            if (deadLetter.SourceOffset is { } offset)
            {
                writer.WriteNumber("sourceOffset", offset);
            }

            if (deadLetter.RedriveCount > 0)
            {
                writer.WriteNumber("redriveCount", deadLetter.RedriveCount);
            }

            writer.WriteEndObject();
        }
    }

    private static void WriteIfPresent(Utf8JsonWriter writer, string property, string? value)
    {
        if (value is not null)
        {
            writer.WriteString(property, value);
        }
    }

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
