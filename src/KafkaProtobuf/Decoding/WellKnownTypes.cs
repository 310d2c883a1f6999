using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Text;
using System.Text.Json;
using Google.Protobuf.Reflection;
using KafkaProtobuf.Descriptors;
using KafkaProtobuf.Framing;

namespace KafkaProtobuf.Decoding;

/// <summary>
/// The proto3 JSON forms of Google's well-known types, as Google.Protobuf's <c>JsonFormatter</c> writes them: Timestamp
/// and Duration as strings, wrappers as their value, Struct/Value/ListValue as plain JSON, FieldMask as a string, Any
/// with <c>"@type"</c>. A value JsonFormatter would refuse (a timestamp out of range) falls back to its plain fields.
/// </summary>
internal static class WellKnownTypes
{
    private const long MinTimestampSeconds = -62_135_596_800;   // 0001-01-01T00:00:00Z
    private const long MaxTimestampSeconds = 253_402_300_799;   // 9999-12-31T23:59:59Z
    private const long MaxDurationSeconds = 315_576_000_000;
    private const int MaxNanos = 999_999_999;
    private static readonly DateTime UnixEpoch = new(1970, 1, 1, 0, 0, 0, DateTimeKind.Utc);

    public static bool TryWrite(ProtoJsonDecoder decoder, Utf8JsonWriter writer, MessageDescriptor type, ReadOnlySpan<byte> all, List<WireField> fields)
    {
        switch (type.FullName)
        {
            case "google.protobuf.Timestamp":
                return TryWriteTimestamp(writer, Varint(fields, 1), (int)Varint(fields, 2));
            case "google.protobuf.Duration":
                return TryWriteDuration(writer, (long)Varint(fields, 1), (int)Varint(fields, 2));
            case "google.protobuf.DoubleValue" or "google.protobuf.FloatValue" or "google.protobuf.Int64Value" or "google.protobuf.UInt64Value"
                or "google.protobuf.Int32Value" or "google.protobuf.UInt32Value" or "google.protobuf.BoolValue":
                ProtoJsonDecoder.WriteScalar(writer, type.FindFieldByNumber(1), Last(fields, 1)?.Scalar ?? 0);
                return true;
            case "google.protobuf.StringValue":
                writer.WriteStringValue(Last(fields, 1) is { } s ? PayloadBytes.Utf8(all.Slice(s.Start, s.Length)) : string.Empty);
                return true;
            case "google.protobuf.BytesValue":
                writer.WriteBase64StringValue(Last(fields, 1) is { } b ? all.Slice(b.Start, b.Length) : []);
                return true;
            case "google.protobuf.Struct":
                decoder.WriteMapObject(writer, type.FindFieldByNumber(1), all, [.. fields.Where(f => f.Number == 1 && f.Type == WireType.LengthDelimited)]);
                return true;
            case "google.protobuf.ListValue":
                writer.WriteStartArray();
                foreach (WireField value in fields.Where(f => f.Number == 1 && f.Type == WireType.LengthDelimited))
                {
                    decoder.WriteNested(writer, type.FindFieldByNumber(1).MessageType, all, [value]);
                }

                writer.WriteEndArray();
                return true;
            case "google.protobuf.Value":
                WriteValue(decoder, writer, type, all, fields);
                return true;
            case "google.protobuf.FieldMask":
                var paths = new List<string>();
                foreach (WireField path in fields.Where(f => f.Number == 1 && f.Type == WireType.LengthDelimited))
                {
                    paths.Add(JsonNames.FromFieldName(PayloadBytes.Utf8(all.Slice(path.Start, path.Length))));
                }

                writer.WriteStringValue(string.Join(",", paths));
                return true;
            case "google.protobuf.Any":
                WriteAny(decoder, writer, all, fields);
                return true;
            default:
                return false;
        }
    }

    private static bool TryWriteTimestamp(Utf8JsonWriter writer, ulong rawSeconds, int nanos)
    {
        long seconds = (long)rawSeconds;
        if (nanos is < 0 or > MaxNanos || seconds is < MinTimestampSeconds or > MaxTimestampSeconds)
        {
            return false; // not a valid instant: shown as its fields
        }

        var text = new StringBuilder(UnixEpoch.AddSeconds(seconds).ToString("yyyy'-'MM'-'dd'T'HH:mm:ss", CultureInfo.InvariantCulture));
        AppendNanos(text, nanos);
        writer.WriteStringValue(text.Append('Z').ToString());
        return true;
    }

    private static bool TryWriteDuration(Utf8JsonWriter writer, long seconds, int nanos)
    {
        if (seconds is < -MaxDurationSeconds or > MaxDurationSeconds || nanos is < -MaxNanos or > MaxNanos || Math.Sign(seconds) * Math.Sign(nanos) == -1)
        {
            return false;
        }

        var text = new StringBuilder();
        if (seconds == 0 && nanos < 0)
        {
            text.Append('-');
        }

        text.Append(seconds.ToString("d", CultureInfo.InvariantCulture));
        AppendNanos(text, Math.Abs(nanos));
        writer.WriteStringValue(text.Append('s').ToString());
        return true;
    }

    /// <summary>0, 3, 6 or 9 fractional digits, as few as the value needs.</summary>
    private static void AppendNanos(StringBuilder text, int nanos)
    {
        if (nanos == 0)
        {
            return;
        }

        text.Append('.');
        if (nanos % 1_000_000 == 0)
        {
            text.Append((nanos / 1_000_000).ToString("d3", CultureInfo.InvariantCulture));
        }
        else if (nanos % 1_000 == 0)
        {
            text.Append((nanos / 1_000).ToString("d6", CultureInfo.InvariantCulture));
        }
        else
        {
            text.Append(nanos.ToString("d9", CultureInfo.InvariantCulture));
        }
    }

    private static void WriteValue(ProtoJsonDecoder decoder, Utf8JsonWriter writer, MessageDescriptor type, ReadOnlySpan<byte> all, List<WireField> fields)
    {
        // The kind oneof: the member set last wins; a message member given several times merges after it.
        WireField? last = fields.Where(f => f.Number is >= 1 and <= 6).Cast<WireField?>().LastOrDefault();
        if (last is not { } kind)
        {
            writer.WriteNullValue(); // no kind: JsonFormatter refuses it; null says as much
            return;
        }

        switch (kind.Number)
        {
            case 1:
                writer.WriteNullValue();
                break;
            case 2:
                ProtoJsonDecoder.WriteDouble(writer, BitConverter.Int64BitsToDouble((long)kind.Scalar));
                break;
            case 3:
                writer.WriteStringValue(PayloadBytes.Utf8(all.Slice(kind.Start, kind.Length)));
                break;
            case 4:
                writer.WriteBooleanValue(kind.Scalar != 0);
                break;
            default:
                int lastOther = fields.Where(f => f.Number is >= 1 and <= 6 && f.Number != kind.Number).Select(f => f.Position).DefaultIfEmpty(-1).Max();
                decoder.WriteNested(writer, type.FindFieldByNumber(kind.Number).MessageType, all, fields.Where(f => f.Number == kind.Number && f.Position > lastOther));
                break;
        }
    }

    private static void WriteAny(ProtoJsonDecoder decoder, Utf8JsonWriter writer, ReadOnlySpan<byte> all, List<WireField> fields)
    {
        string typeUrl = Last(fields, 1) is { Type: WireType.LengthDelimited } url ? PayloadBytes.Utf8(all.Slice(url.Start, url.Length)) : string.Empty;
        WireField? value = Last(fields, 2);
        int start = value?.Start ?? 0;
        int length = value?.Length ?? 0;
        writer.WriteStartObject();
        writer.WriteString("@type", typeUrl);
        MessageDescriptor? type = decoder.FindType(typeUrl);
        if (type is null)
        {
            writer.WriteBase64String("value", all.Slice(start, length)); // the type is not among the files at hand
        }
        else if (WellKnownFiles.IsWellKnownType(type))
        {
            writer.WritePropertyName("value");
            decoder.WriteNested(writer, type, all, [new WireField(2, WireType.LengthDelimited, 0, start, length, 0)]);
        }
        else
        {
            decoder.WriteFieldsOf(writer, type, all, start, length);
        }

        writer.WriteEndObject();
    }

    private static WireField? Last(List<WireField> fields, int number) => fields.Where(f => f.Number == number).Cast<WireField?>().LastOrDefault();

    private static ulong Varint(List<WireField> fields, int number) => Last(fields, number) is { Type: WireType.Varint } f ? f.Scalar : 0;
}
