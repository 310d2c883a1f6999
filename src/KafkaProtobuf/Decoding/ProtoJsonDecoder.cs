using System;
using System.Buffers;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Text;
using System.Text.Encodings.Web;
using System.Text.Json;
using Google.Protobuf.Reflection;
using KafkaProtobuf.Descriptors;
using KafkaProtobuf.Framing;

namespace KafkaProtobuf.Decoding;

/// <summary>
/// Decodes a Protobuf encoding to the proto3 JSON mapping from a descriptor alone (no generated class): JSON names,
/// enums by name, 64-bit integers as strings, bytes as base64, maps, oneofs, packed and unpacked repeated fields, the
/// well-known types, and <c>Any</c> with its type resolved from the descriptors at hand (else its type URL and base64).
/// Field order and presence follow Google.Protobuf's <c>JsonFormatter</c>, so known fields print as it prints them;
/// unknown fields, which it drops, are kept under <c>"@unknown"</c> by field number.
/// </summary>
internal sealed class ProtoJsonDecoder
{
    /// <summary>The tool's JSON: readable text (no escaping of non-ASCII), one line or indented.</summary>
    internal static readonly JsonWriterOptions Compact = new() { Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping };

    /// <summary>Like <see cref="Compact"/>, indented.</summary>
    internal static readonly JsonWriterOptions Indented = new() { Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping, Indented = true };

    private readonly Dictionary<string, MessageDescriptor> _knownTypes;

    // How many messages deep the decoding on this thread is: a hostile payload nests as deep as its bytes allow.
    [ThreadStatic]
    private static int t_depth;

    /// <summary>Creates a decoder that resolves <c>Any</c> payloads among the messages of <paramref name="files"/> and their imports.</summary>
    /// <param name="files">The files whose message types an <c>Any</c> may hold.</param>
    public ProtoJsonDecoder(IEnumerable<FileDescriptor> files)
    {
        _knownTypes = new Dictionary<string, MessageDescriptor>(StringComparer.Ordinal);
        foreach (FileDescriptor file in Closure(files))
        {
            foreach (MessageDescriptor message in file.MessageTypes.SelectMany(Nested))
            {
                _knownTypes[message.FullName] = message;
            }
        }
    }

    /// <summary>The JSON of <paramref name="payload"/> as a <paramref name="type"/>.</summary>
    /// <param name="type">The writer's message type.</param>
    /// <param name="payload">The Protobuf encoding.</param>
    /// <param name="indented">Pretty-printed rather than one line.</param>
    /// <returns>The JSON text.</returns>
    /// <exception cref="PayloadDecodeException">The payload is not a valid encoding.</exception>
    public string Decode(MessageDescriptor type, ReadOnlySpan<byte> payload, bool indented = false)
    {
        using var buffer = new System.IO.MemoryStream();
        using (var writer = new Utf8JsonWriter(buffer, indented ? Indented : Compact))
        {
            Write(writer, type, payload);
        }

        return Encoding.UTF8.GetString(buffer.GetBuffer(), 0, (int)buffer.Length);
    }

    /// <summary>
    /// <see cref="Decode"/>, made inert: JSON strings escape control characters, but not bidirectional controls, C1
    /// controls or line separators, which may only stand inside strings, where a <c>\uXXXX</c> escape means the same.
    /// </summary>
    /// <exception cref="PayloadDecodeException">The payload is not a valid encoding.</exception>
    public string DecodeInert(MessageDescriptor type, ReadOnlySpan<byte> payload, bool indented)
    {
        string json = Decode(type, payload, indented);
        StringBuilder? inert = null;
        for (int i = 0; i < json.Length; i++)
        {
            char c = json[i];
            if ((BoundedText.IsControl(c) && c is not '\n' and not '\r' and not '\t') || BoundedText.IsBidiControl(c) || c is '\u2028' or '\u2029')
            {
                inert ??= new StringBuilder(json, 0, i, json.Length + 16);
                inert.Append("\\u").Append(((int)c).ToString("x4", CultureInfo.InvariantCulture));
            }
            else
            {
                inert?.Append(c);
            }
        }

        return inert?.ToString() ?? json;
    }

    /// <summary>Whether <paramref name="payload"/> is a valid encoding of a <paramref name="type"/>.</summary>
    public bool Decodes(MessageDescriptor type, ReadOnlySpan<byte> payload)
    {
        try
        {
            Decode(type, payload);
            return true;
        }
        catch (PayloadDecodeException)
        {
            return false;
        }
    }

    /// <summary>Writes the JSON of <paramref name="payload"/> as a <paramref name="type"/>.</summary>
    /// <param name="writer">Where the JSON value goes.</param>
    /// <param name="type">The writer's message type.</param>
    /// <param name="payload">The Protobuf encoding.</param>
    /// <exception cref="PayloadDecodeException">The payload is not a valid encoding.</exception>
    public void Write(Utf8JsonWriter writer, MessageDescriptor type, ReadOnlySpan<byte> payload)
    {
        if (writer is null)
        {
            throw new ArgumentNullException(nameof(writer));
        }

        if (type is null)
        {
            throw new ArgumentNullException(nameof(type));
        }

        WriteMessage(writer, type, payload, [new Segment(0, payload.Length)]);
    }

    /// <summary>A slice of the payload; a message given several times on the wire is the merge of its slices.</summary>
    private readonly record struct Segment(int Start, int Length);

    private void WriteMessage(Utf8JsonWriter writer, MessageDescriptor type, ReadOnlySpan<byte> all, List<Segment> segments)
    {
        Enter(segments.Count > 0 ? segments[0].Start : 0);
        try
        {
            List<WireField> fields = ReadFields(all, segments);
            if (WellKnownTypes.TryWrite(this, writer, type, all, fields))
            {
                return;
            }

            writer.WriteStartObject();
            WriteProperties(writer, type, all, fields);
            writer.WriteEndObject();
        }
        finally
        {
            t_depth--;
        }
    }

    /// <summary>One message deeper; past <see cref="WireReader.MaxDepth"/> (Google.Protobuf's limit) the payload is refused, as its parser would.</summary>
    private static void Enter(int offset)
    {
        if (++t_depth > WireReader.MaxDepth)
        {
            t_depth--;
            throw new PayloadDecodeException($"messages nested deeper than {WireReader.MaxDepth}", offset);
        }
    }

    /// <summary>The field occurrences of every segment, in wire order (positions numbered across segments).</summary>
    private static List<WireField> ReadFields(ReadOnlySpan<byte> all, List<Segment> segments)
    {
        List<WireField> fields = [];
        foreach (Segment segment in segments)
        {
            int offset = fields.Count;
            fields.AddRange(WireReader.ReadFields(all.Slice(segment.Start, segment.Length), segment.Start)
                .Select(f => f with { Position = f.Position + offset }));
        }

        return fields;
    }

    /// <summary>A message's known fields, then its unknown ones, as properties of an object already started.</summary>
    private void WriteProperties(Utf8JsonWriter writer, MessageDescriptor type, ReadOnlySpan<byte> all, List<WireField> fields)
    {
        ILookup<int, WireField> byNumber = fields.ToLookup(f => f.Number);
        foreach (FieldDescriptor field in type.Fields.InDeclarationOrder())
        {
            List<WireField> occurrences = [.. byNumber[field.FieldNumber].Where(f => Fits(field, f.Type))];
            if (field.ContainingOneof is { } oneof)
            {
                occurrences = InOneof(oneof, field, fields, occurrences);
            }

            if (occurrences.Count > 0)
            {
                WriteField(writer, field, all, occurrences);
            }
        }

        var declared = new HashSet<int>(type.Fields.InDeclarationOrder().Select(f => f.FieldNumber));
        List<WireField> unknown = [.. fields.Where(f => !declared.Contains(f.Number) || !Fits(type.FindFieldByNumber(f.Number), f.Type))];
        if (unknown.Count > 0)
        {
            WriteUnknown(writer, all, unknown);
        }
    }

    /// <summary>A oneof member counts only if it was set last among its oneof, and only from after the last other member.</summary>
    private static List<WireField> InOneof(OneofDescriptor oneof, FieldDescriptor field, List<WireField> fields, List<WireField> occurrences)
    {
        var members = new HashSet<int>(oneof.Fields.Select(f => f.FieldNumber));
        int lastOther = fields.Where(f => members.Contains(f.Number) && f.Number != field.FieldNumber && Fits(oneof.Fields.First(m => m.FieldNumber == f.Number), f.Type))
            .Select(f => f.Position).DefaultIfEmpty(-1).Max();
        return [.. occurrences.Where(o => o.Position > lastOther)];
    }

    private void WriteField(Utf8JsonWriter writer, FieldDescriptor field, ReadOnlySpan<byte> all, List<WireField> occurrences)
    {
        if (field.IsMap)
        {
            WriteMap(writer, field, all, occurrences);
            return;
        }

        if (field.IsRepeated)
        {
            writer.WritePropertyName(field.JsonName);
            writer.WriteStartArray();
            foreach (WireField occurrence in occurrences)
            {
                if (occurrence.Type == WireType.LengthDelimited && WireTypes.IsPackable(field.FieldType))
                {
                    foreach (ulong value in Unpack(field.FieldType, all.Slice(occurrence.Start, occurrence.Length), occurrence.Start))
                    {
                        WriteScalar(writer, field, value);
                    }
                }
                else
                {
                    WriteSingle(writer, field, all, [occurrence]);
                }
            }

            writer.WriteEndArray();
            return;
        }

        if (field.FieldType is FieldType.Message or FieldType.Group)
        {
            writer.WritePropertyName(field.JsonName);
            WriteSingle(writer, field, all, occurrences);
            return;
        }

        // A singular scalar: the last occurrence wins; without presence a default value is not printed.
        WireField last = occurrences[occurrences.Count - 1];
        if (!field.HasPresence && IsDefault(field, all, last))
        {
            return;
        }

        writer.WritePropertyName(field.JsonName);
        WriteSingle(writer, field, all, [last]);
    }

    private void WriteSingle(Utf8JsonWriter writer, FieldDescriptor field, ReadOnlySpan<byte> all, List<WireField> occurrences)
    {
        WireField last = occurrences[occurrences.Count - 1];
        switch (field.FieldType)
        {
            case FieldType.Message:
            case FieldType.Group:
                WriteMessage(writer, field.MessageType, all, [.. occurrences.Select(o => new Segment(o.Start, o.Length))]);
                break;
            case FieldType.String:
                writer.WriteStringValue(PayloadBytes.Utf8(all.Slice(last.Start, last.Length)));
                break;
            case FieldType.Bytes:
                writer.WriteBase64StringValue(all.Slice(last.Start, last.Length));
                break;
            default:
                WriteScalar(writer, field, last.Scalar);
                break;
        }
    }

    private void WriteMap(Utf8JsonWriter writer, FieldDescriptor field, ReadOnlySpan<byte> all, List<WireField> occurrences)
    {
        writer.WritePropertyName(field.JsonName);
        WriteMapObject(writer, field, all, occurrences);
    }

    /// <summary>A map field's entries as a JSON object (also <c>Struct</c>, which is a map of <c>Value</c>s).</summary>
    internal void WriteMapObject(Utf8JsonWriter writer, FieldDescriptor field, ReadOnlySpan<byte> all, List<WireField> occurrences)
    {
        FieldDescriptor keyField = field.MessageType.FindFieldByNumber(1);
        FieldDescriptor valueField = field.MessageType.FindFieldByNumber(2);

        // A key given twice keeps its first place and takes its last value, as Google.Protobuf's MapField does.
        var order = new List<string>();
        var values = new Dictionary<string, List<WireField>>(StringComparer.Ordinal);
        foreach (WireField entry in occurrences)
        {
            List<WireField> parts = WireReader.ReadFields(all.Slice(entry.Start, entry.Length), entry.Start);
            List<WireField> keyParts = [.. parts.Where(p => p.Number == 1 && Fits(keyField, p.Type))];
            List<WireField> valueParts = [.. parts.Where(p => p.Number == 2 && Fits(valueField, p.Type))];
            string key = keyParts.Count == 0 ? MapKeyDefault(keyField) : MapKey(keyField, all, keyParts[keyParts.Count - 1]);
            if (!values.ContainsKey(key))
            {
                order.Add(key);
            }

            values[key] = valueParts;
        }

        writer.WriteStartObject();
        foreach (string key in order)
        {
            writer.WritePropertyName(key);
            List<WireField> value = values[key];
            if (value.Count == 0)
            {
                WriteDefault(writer, valueField);
            }
            else
            {
                WriteSingle(writer, valueField, all, valueField.FieldType == FieldType.Message ? value : [value[value.Count - 1]]);
            }
        }

        writer.WriteEndObject();
    }

    private void WriteDefault(Utf8JsonWriter writer, FieldDescriptor field)
    {
        switch (field.FieldType)
        {
            case FieldType.Message:
                WriteMessage(writer, field.MessageType, [], [new Segment(0, 0)]);
                break;
            case FieldType.String:
                writer.WriteStringValue(string.Empty);
                break;
            case FieldType.Bytes:
                writer.WriteBase64StringValue([]);
                break;
            default:
                WriteScalar(writer, field, 0);
                break;
        }
    }

    /// <summary>Writes a varint or fixed value as its field type's JSON.</summary>
    internal static void WriteScalar(Utf8JsonWriter writer, FieldDescriptor field, ulong raw)
    {
        switch (field.FieldType)
        {
            case FieldType.Double:
                WriteDouble(writer, BitConverter.Int64BitsToDouble((long)raw));
                break;
            case FieldType.Float:
                WriteFloat(writer, PayloadBytes.Float((uint)raw));
                break;
            case FieldType.Int64:
            case FieldType.SFixed64:
                writer.WriteStringValue(((long)raw).ToString(CultureInfo.InvariantCulture));
                break;
            case FieldType.UInt64:
            case FieldType.Fixed64:
                writer.WriteStringValue(raw.ToString(CultureInfo.InvariantCulture));
                break;
            case FieldType.SInt64:
                writer.WriteStringValue(ZigZag64(raw).ToString(CultureInfo.InvariantCulture));
                break;
            case FieldType.Int32:
            case FieldType.SFixed32:
                writer.WriteNumberValue((int)raw);
                break;
            case FieldType.SInt32:
                writer.WriteNumberValue(ZigZag32((uint)raw));
                break;
            case FieldType.UInt32:
            case FieldType.Fixed32:
                writer.WriteNumberValue((uint)raw);
                break;
            case FieldType.Bool:
                writer.WriteBooleanValue(raw != 0);
                break;
            case FieldType.Enum:
                WriteEnum(writer, field.EnumType, (int)raw);
                break;
            default:
                throw new InvalidOperationException(field.FieldType + " is not a scalar");
        }
    }

    internal static void WriteEnum(Utf8JsonWriter writer, EnumDescriptor type, int number)
    {
        if (type.FullName == "google.protobuf.NullValue")
        {
            writer.WriteNullValue();
        }
        else if (type.FindValueByNumber(number) is { } value)
        {
            writer.WriteStringValue(value.Name);
        }
        else
        {
            writer.WriteNumberValue(number);
        }
    }

    internal static void WriteDouble(Utf8JsonWriter writer, double value)
    {
        if (double.IsNaN(value))
        {
            writer.WriteStringValue("NaN");
        }
        else if (double.IsInfinity(value))
        {
            writer.WriteStringValue(value > 0 ? "Infinity" : "-Infinity");
        }
        else
        {
            writer.WriteNumberValue(value);
        }
    }

    private static void WriteFloat(Utf8JsonWriter writer, float value)
    {
        if (float.IsNaN(value) || float.IsInfinity(value))
        {
            WriteDouble(writer, value);
        }
        else
        {
            writer.WriteNumberValue(value);
        }
    }

    private static void WriteUnknown(Utf8JsonWriter writer, ReadOnlySpan<byte> all, List<WireField> unknown)
    {
        writer.WritePropertyName("@unknown");
        writer.WriteStartObject();
        foreach (IGrouping<int, WireField> number in unknown.GroupBy(f => f.Number))
        {
            writer.WritePropertyName(number.Key.ToString(CultureInfo.InvariantCulture));
            bool many = number.Count() > 1;
            if (many)
            {
                writer.WriteStartArray();
            }

            foreach (WireField f in number)
            {
                switch (f.Type)
                {
                    case WireType.Varint:
                    case WireType.Fixed64:
                        writer.WriteStringValue(f.Scalar.ToString(CultureInfo.InvariantCulture)); // may exceed a double's integers
                        break;
                    case WireType.Fixed32:
                        writer.WriteNumberValue((uint)f.Scalar);
                        break;
                    default:
                        writer.WriteBase64StringValue(all.Slice(f.Start, f.Length));
                        break;
                }
            }

            if (many)
            {
                writer.WriteEndArray();
            }
        }

        writer.WriteEndObject();
    }

    private static bool IsDefault(FieldDescriptor field, ReadOnlySpan<byte> all, WireField value) => field.FieldType switch
    {
        FieldType.String or FieldType.Bytes => value.Length == 0,
        FieldType.Double => BitConverter.Int64BitsToDouble((long)value.Scalar) == 0,
        FieldType.Float => PayloadBytes.Float((uint)value.Scalar) == 0,
        FieldType.Int32 or FieldType.SFixed32 or FieldType.SInt32 or FieldType.UInt32 or FieldType.Fixed32 or FieldType.Enum => (uint)value.Scalar == 0,
        FieldType.Bool => value.Scalar == 0,
        _ => value.Scalar == 0,
    };

    /// <summary>Whether a wire type can carry the field (a mismatch makes the occurrence an unknown field, as parsers do).</summary>
    private static bool Fits(FieldDescriptor? field, WireType type)
    {
        if (field is null)
        {
            return false;
        }

        WireType expected = WireTypes.Of(field.FieldType);
        return type == expected || (field.IsRepeated && type == WireType.LengthDelimited && WireTypes.IsPackable(field.FieldType));
    }

    private static List<ulong> Unpack(FieldType type, ReadOnlySpan<byte> packed, int baseOffset)
    {
        var values = new List<ulong>();
        int position = 0;
        int width = type switch
        {
            FieldType.Double or FieldType.Fixed64 or FieldType.SFixed64 => 8,
            FieldType.Float or FieldType.Fixed32 or FieldType.SFixed32 => 4,
            _ => 0,
        };
        if (width != 0 && packed.Length % width != 0)
        {
            throw new PayloadDecodeException($"a packed field of {width}-byte values is {packed.Length} bytes long", baseOffset);
        }

        while (position < packed.Length)
        {
            if (width == 8)
            {
                values.Add(BinaryPrimitives.ReadUInt64LittleEndian(packed.Slice(position)));
                position += 8;
            }
            else if (width == 4)
            {
                values.Add(BinaryPrimitives.ReadUInt32LittleEndian(packed.Slice(position)));
                position += 4;
            }
            else
            {
                values.Add(WireReader.ReadVarint(packed, ref position, baseOffset));
            }
        }

        return values;
    }

    private static string MapKey(FieldDescriptor keyField, ReadOnlySpan<byte> all, WireField key) => keyField.FieldType switch
    {
        FieldType.String => PayloadBytes.Utf8(all.Slice(key.Start, key.Length)),
        FieldType.Bool => key.Scalar != 0 ? "true" : "false",
        FieldType.Int64 or FieldType.SFixed64 => ((long)key.Scalar).ToString(CultureInfo.InvariantCulture),
        FieldType.SInt64 => ZigZag64(key.Scalar).ToString(CultureInfo.InvariantCulture),
        FieldType.UInt64 or FieldType.Fixed64 => key.Scalar.ToString(CultureInfo.InvariantCulture),
        FieldType.SInt32 => ZigZag32((uint)key.Scalar).ToString(CultureInfo.InvariantCulture),
        FieldType.UInt32 or FieldType.Fixed32 => ((uint)key.Scalar).ToString(CultureInfo.InvariantCulture),
        _ => ((int)key.Scalar).ToString(CultureInfo.InvariantCulture),
    };

    private static string MapKeyDefault(FieldDescriptor keyField) => keyField.FieldType switch
    {
        FieldType.String => string.Empty,
        FieldType.Bool => "false",
        _ => "0",
    };

    private static long ZigZag64(ulong n) => (long)(n >> 1) ^ -(long)(n & 1);

    private static int ZigZag32(uint n) => (int)(n >> 1) ^ -(int)(n & 1);

    /// <summary>The message type named by an <c>Any</c>'s type URL, if one of the files at hand has it.</summary>
    internal MessageDescriptor? FindType(string typeUrl)
    {
        int slash = typeUrl.LastIndexOf('/');
        return _knownTypes.TryGetValue(slash < 0 ? typeUrl : typeUrl.Substring(slash + 1), out MessageDescriptor? type) ? type : null;
    }

    /// <summary>Decodes a nested message value (for the well-known types that hold messages).</summary>
    internal void WriteNested(Utf8JsonWriter writer, MessageDescriptor type, ReadOnlySpan<byte> all, IEnumerable<WireField> occurrences) =>
        WriteMessage(writer, type, all, [.. occurrences.Select(o => new Segment(o.Start, o.Length))]);

    /// <summary>Writes a message's fields into an object already started (an <c>Any</c> of a plain message).</summary>
    internal void WriteFieldsOf(Utf8JsonWriter writer, MessageDescriptor type, ReadOnlySpan<byte> all, int start, int length)
    {
        Enter(start);
        try
        {
            WriteProperties(writer, type, all, ReadFields(all, [new Segment(start, length)]));
        }
        finally
        {
            t_depth--;
        }
    }

    private static IEnumerable<MessageDescriptor> Nested(MessageDescriptor message) => message.NestedTypes.SelectMany(Nested).Prepend(message);

    private static IEnumerable<FileDescriptor> Closure(IEnumerable<FileDescriptor> files)
    {
        var seen = new HashSet<string>(StringComparer.Ordinal);
        var stack = new Stack<FileDescriptor>(files);
        while (stack.Count > 0)
        {
            FileDescriptor file = stack.Pop();
            if (seen.Add(file.Name))
            {
                yield return file;
                foreach (FileDescriptor dependency in file.Dependencies)
                {
                    stack.Push(dependency);
                }
            }
        }
    }
}
