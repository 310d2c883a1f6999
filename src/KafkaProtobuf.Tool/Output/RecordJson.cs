using System.Globalization;
using System.Text;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Redrive;
using KafkaProtobuf.Tool.Schemas;

namespace KafkaProtobuf.Tool.Output;

/// <summary>
/// A record's fields as <c>consume</c> and <c>dead-letters list</c> print them: its place and time, key and value taken
/// apart and decoded, headers, and a dead letter's details as its writer recorded them.
/// </summary>
internal sealed class RecordJson(RecordParts parts, string keyFormat, string? expectedValueType)
{
    /// <summary>
    /// Writes a record's properties into an object already started, its blocks as the codec read them (<paramref name="read"/>,
    /// whose <see cref="DeadLetter.Record"/> is the record); true when its key or value could not be read.
    /// </summary>
    /// <exception cref="SchemaUnavailableException">The schema source failed.</exception>
    public async Task<bool> WritePropertiesAsync(Utf8JsonWriter writer, DeadLetter read, CancellationToken cancellationToken)
    {
        ConsumeResult<byte[], byte[]> record = read.Record;
        Headers headers = record.Message.Headers ?? [];
        WritePosition(writer, record);
        writer.WriteString("timestamp", record.Message.Timestamp.UtcDateTime.ToString("O", CultureInfo.InvariantCulture));
        writer.WritePropertyName("key");
        bool bad = await WritePartAsync(writer, record.Message.Key, MessageComponentType.Key, record.Topic, headers, keyFormat, cancellationToken).ConfigureAwait(false);
        writer.WritePropertyName("value");
        bad |= await WritePartAsync(writer, record.Message.Value, MessageComponentType.Value, record.Topic, headers, "framed", cancellationToken).ConfigureAwait(false);
        RecordHeaders.Write(writer, read);
        return bad;
    }

    /// <summary>The record's topic, partition and offset.</summary>
    public static void WritePosition(Utf8JsonWriter writer, ConsumeResult<byte[], byte[]> record)
    {
        writer.WriteString("topic", record.Topic);
        writer.WriteNumber("partition", record.Partition.Value);
        writer.WriteNumber("offset", record.Offset.Value);
    }

    /// <summary>Writes a key or value; true when it could not be read.</summary>
    private async Task<bool> WritePartAsync(Utf8JsonWriter writer, byte[]? data, MessageComponentType component, string topic, Headers headers, string format, CancellationToken cancellationToken)
    {
        if (data is null)
        {
            writer.WriteNullValue();
            return false;
        }

        switch (format)
        {
            case "string":
                writer.WriteStringValue(Encoding.UTF8.GetString(data));
                return false;
            case "bytes":
                writer.WriteBase64StringValue(data);
                return false;
        }

        ShownPart part = await parts.DecodeAsync(
            data, new SerializationContext(component, topic, headers), component == MessageComponentType.Value ? expectedValueType : null, cancellationToken).ConfigureAwait(false);
        PartJson.Write(writer, part, data);
        return part.Part.IsBad;
    }
}
