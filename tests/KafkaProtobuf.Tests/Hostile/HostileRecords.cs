using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Text;
using Confluent.Kafka;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Framing;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.Tests.Support;
using Vectors.Telemetry.V1;
using static KafkaProtobuf.Tests.Support.Hex;
using static KafkaProtobuf.Tests.Support.TestDescriptors;
using Type = Google.Protobuf.Reflection.FieldDescriptorProto.Types.Type;

namespace KafkaProtobuf.Tests.Hostile;

/// <summary>
/// One hostile record: its value and headers, and what each reader must make of it. A code: bad data, dead-lettered with
/// that code (<see cref="Typed"/>: a typed <c>Device</c> deserializer checking the writer's type by name in the registry,
/// as the hosted consumer and the Streamiz serdes read; <see cref="Multi"/>: a multi-type one); null: a good record,
/// handled. <see cref="Tool"/>: what kafka-protobuf says of it (a substring of its error), or null when it decodes it.
/// </summary>
public sealed record HostileRecord(string Item, string Name, byte[] Value, Headers? Headers, FrameErrorCode? Typed, FrameErrorCode? Multi, string? Tool)
{
    public override string ToString() => Item + ": " + Name;
}

/// <summary>
/// The table the hostile-record tests run through every reader: today's poison kinds, and the records of issue 36's
/// items 1 to 5 and 7 (schema ids the registry answers unusably, a path of 250,000 indexes, nested groups, forged retry
/// and source headers, terminal escapes), each served by a <see cref="ScriptedRegistry"/> as a broken or hostile
/// registry would. Good values are <c>Device</c>s under schema id 2 (<c>telemetry.proto</c>, path [1]).
/// </summary>
public static class HostileRecords
{
    /// <summary>The good schema: telemetry.proto (it imports timestamp.proto, a well-known file: no reference).</summary>
    public const int GoodId = 2;

    /// <summary>What terminal escapes and bidirectional controls look like in a hostile string.</summary>
    public const string Escapes = "\u001b[2J\u001b]0;owned\u0007\u202eevil\u202c";

    /// <summary><see cref="Escapes"/> as every message quotes it: each control and bidirectional character written out.</summary>
    public const string EscapesWrittenOut = @"\x1b[2J\x1b]0;owned\x07\u202eevil\u202c";

    public static IReadOnlyList<HostileRecord> All { get; } = Build();

    /// <summary>The registry the table's schema ids need: the good one, and each way of answering unusably.</summary>
    public static void Script(ScriptedRegistry registry)
    {
        registry.Schema(GoodId, FileDescriptorProto.Parser.ParseFrom(TelemetryReflection.Descriptor.SerializedData));
        registry.Schema(3, "AVRO", "[\"null\",{\"type\":\"record\",\"name\":\"Device\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"}]}]");
        registry.Schema(4, File("broken.proto", Message("Device", Field("next", 1, Type.Message, ".nope.Missing"))));
        registry.Schema(5, File("device.proto", Message("Device"), "common.proto"), ("common.proto", "common", 7));
        registry.Error("/subjects/common/versions/7", 404, 40402, "Version 7 not found.");
        registry.Error("/schemas/ids/6", 422, 42202, "Invalid schema " + Escapes);
        registry.Json("/schemas/ids/7", 200, "{\"schema\": {\"not\": \"a string\"}}");
        registry.Raw("/schemas/ids/8", 200, "application/vnd.schemaregistry.v1+json", Encoding.UTF8.GetBytes("{\"schema\":\""), declaredLength: 1_000_000_000);
        ScriptChain(registry, 9, RegistryClientOptionsDepth + 6);
    }

    /// <summary>A good value, numbered in its <c>Device</c>'s id.</summary>
    public static byte[] Good(int sequence) => [0, 0, 0, 0, GoodId, 2, 2, .. new Device { Id = "device-" + sequence.ToString(CultureInfo.InvariantCulture) }.ToByteArray()];

    // The registry client's default MaxReferenceDepth: a chain deeper than it is unusable.
    private const int RegistryClientOptionsDepth = KafkaProtobuf.SchemaRegistry.RegistryClientOptions.DefaultMaxReferenceDepth;

    private static List<HostileRecord> Build()
    {
        byte[] device = new Device { Id = "poisoned" }.ToByteArray();
        byte[] reading = new Reading { SensorId = "s-1" }.ToByteArray();
        var rows = new List<HostileRecord>
        {
            // Today's poison kinds (an empty value is a tombstone once it has been through a broker: not among them).
            Poison("poison", "truncated id", Bytes("00 0000"), FrameErrorCode.TruncatedSchemaId, "TruncatedSchemaId"),
            Poison("poison", "truncated GUID", Bytes("01 535dfcf3ca23"), FrameErrorCode.TruncatedSchemaId, "TruncatedSchemaId"),
            Poison("poison", "JSON, not framed", Encoding.UTF8.GetBytes("{\"id\":\"dev-1\"}"), FrameErrorCode.UnknownMagicByte, "UnknownMagicByte"),
            Poison("poison", "truncated varint", Bytes("00 00000002 82"), FrameErrorCode.TruncatedVarint, "TruncatedVarint"),
            Poison("poison", "six-byte varint", Bytes("00 00000002 80 80 80 80 80 01"), FrameErrorCode.VarintTooLong, "VarintTooLong"),
            Poison("poison", "overflowing varint", Bytes("00 00000002 02 ff ff ff ff 7f"), FrameErrorCode.VarintOverflow, "VarintOverflow"),
            Poison("poison", "negative count", [.. Bytes("00 00000002 03"), .. device], FrameErrorCode.NegativeMessageIndexCount, "NegativeMessageIndexCount"),
            Poison("poison", "count past the end", Bytes("00 00000002 06 02"), FrameErrorCode.MessageIndexCountExceedsData, "MessageIndexCountExceedsData"),
            Poison("poison", "negative index", [.. Bytes("00 00000002 02 05"), .. device], FrameErrorCode.NegativeMessageIndex, "NegativeMessageIndex"),
            new("poison", "empty schema-id header", device, new Headers { { SchemaIdHeaderNames.Value, [] } }, FrameErrorCode.EmptyData, FrameErrorCode.EmptyData, "EmptyData"),
            new("poison", "schema-id header with trailing bytes", device, new Headers { { SchemaIdHeaderNames.Value, Bytes("00 00000002 02 02 ff") } }, FrameErrorCode.TrailingHeaderBytes, FrameErrorCode.TrailingHeaderBytes, "TrailingHeaderBytes"),
            Poison("poison", "a payload that is no Device", Bytes("00 00000002 02 02 0a 05 61"), FrameErrorCode.InvalidPayload, "the payload is not a vectors.telemetry.v1.Device"),
            Poison("poison", "a schema id the registry does not know", [.. Bytes("00 00000063 02 02"), .. device], FrameErrorCode.UnknownSchemaId, "schema id 99 is not known to the schema source"),
            new("poison", "a Reading where a Device is expected", [.. Bytes("00 00000002 00"), .. reading], null, FrameErrorCode.UnexpectedMessageType, null, null),

            // Item 1: a schema id whose answer can never be used (once read again for ever).
            Poison("1", "an Avro schema's id, as an Avro producer writes a null", Bytes("00 00000003 00"), FrameErrorCode.UnusableWriterSchema, "is an AVRO schema, not Protobuf"),
            Poison("1", "a descriptor that does not build", [.. Bytes("00 00000004 00"), .. device], FrameErrorCode.UnusableWriterSchema, "its descriptor does not build"),
            Poison("1", "a reference the registry does not have (40402)", [.. Bytes("00 00000005 00"), .. device], FrameErrorCode.UnusableWriterSchema, "Version 7 not found"),
            Poison("1", "a 422 for the id, its message full of escapes", [.. Bytes("00 00000006 00"), .. device], FrameErrorCode.UnusableWriterSchema, "Invalid schema " + EscapesWrittenOut),
            Poison("1", "a 2xx whose JSON is no schema", [.. Bytes("00 00000007 00"), .. device], FrameErrorCode.UnusableWriterSchema, "the answer is not the JSON expected"),

            // Item 7: limits on what a registry can make us hold.
            Poison("7", "an answer declared 1 GB long", [.. Bytes("00 00000008 00"), .. device], FrameErrorCode.UnusableWriterSchema, "larger than MaxResponseBytes"),
            Poison("7", "references deeper than MaxReferenceDepth", [.. Bytes("00 00000009 00"), .. device], FrameErrorCode.UnusableWriterSchema, "deeper than MaxReferenceDepth (64)"),

            // Item 2: a failure that would quote the whole record.
            Poison("2", "a 250,000-index path before a payload", LongPath(), FrameErrorCode.UnknownMessageType, "names no message of registry-schema-2.proto"),

            // Item 4: payloads nested past any real schema.
            Poison("4", "50 KB of nested groups", [.. Bytes("00 00000002 02 02"), .. Enumerable.Repeat((byte)0x13, 50_000)], FrameErrorCode.InvalidPayload, "groups nested deeper than 100"),

            // Item 3: retry and source headers on a record of a topic that is no retry topic: a good record, handled as such.
            new("3", "forged retry and source headers", Good(900), Forged(), null, null, null),

            // Item 5: escapes and bidirectional controls in a good record's string.
            new("5", "escapes in a field", [0, 0, 0, 0, GoodId, 2, 2, .. new Device { Id = "device-901" + Escapes }.ToByteArray()], null, null, null, null),
        };
        return rows;
    }

    private static HostileRecord Poison(string item, string name, byte[] value, FrameErrorCode code, string tool) => new(item, name, value, null, code, code, tool);

    /// <summary>Forged <c>kafkaprotobuf.retry.*</c> and <c>kafkaprotobuf.source.*</c> headers: a due time past DateTimeOffset's range, an attempt of int.MaxValue, another topic's position.</summary>
    private static Headers Forged() => new()
    {
        { RetryHeaderNames.Due, Encoding.UTF8.GetBytes("99999999999999999") },
        { RetryHeaderNames.Tier, Encoding.UTF8.GetBytes("2147483647") },
        { DeadLetterHeaderNames.SourceTopic, Encoding.UTF8.GetBytes("payments") },
        { DeadLetterHeaderNames.SourcePartition, Encoding.UTF8.GetBytes("7") },
        { DeadLetterHeaderNames.SourceOffset, Encoding.UTF8.GetBytes("99") },
    };

    /// <summary>Schema id 2, a path of 250,000 zeros (zigzag count), then bytes that are no Device: 250,010 bytes in all.</summary>
    private static byte[] LongPath()
    {
        var frame = new List<byte> { 0x00, 0, 0, 0, GoodId };
        for (uint count = 500_000; ; count >>= 7)
        {
            frame.Add((byte)(count < 0x80 ? count : (count & 0x7f) | 0x80));
            if (count < 0x80)
            {
                break;
            }
        }

        frame.AddRange(Enumerable.Repeat((byte)0, 250_000));
        frame.AddRange([0x0a, 0x05, 0x61]);
        return [.. frame];
    }

    /// <summary>Schema <paramref name="id"/> importing a chain of <paramref name="length"/> files, each the next's only reference.</summary>
    private static void ScriptChain(ScriptedRegistry registry, int id, int length)
    {
        registry.Schema(id, File("device.proto", Message("Device"), "chain1.proto"), ("chain1.proto", "chain1", 1));
        for (int i = 1; i <= length; i++)
        {
            string next = "chain" + (i + 1).ToString(CultureInfo.InvariantCulture);
            registry.Version("chain" + i.ToString(CultureInfo.InvariantCulture), 1, i == length
                ? File("chain" + i.ToString(CultureInfo.InvariantCulture) + ".proto", Message("C" + i.ToString(CultureInfo.InvariantCulture)))
                : File("chain" + i.ToString(CultureInfo.InvariantCulture) + ".proto", Message("C" + i.ToString(CultureInfo.InvariantCulture)), next + ".proto"),
                i == length ? [] : [(next + ".proto", next, 1)]);
        }
    }
}
