using System;
using System.Linq;
using System.Reflection;
using System.Text.Json;
using CsCheck;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using Google.Protobuf.WellKnownTypes;
using KafkaProtobuf.Decoding;
using KafkaProtobuf.Framing;
using KafkaProtobuf.Tests.ToolTypes;
using Vectors.Telemetry.V1;
using Xunit;

namespace KafkaProtobuf.Tests.Tool;

/// <summary>
/// The tool's descriptor-driven decoder against Google.Protobuf's <see cref="JsonFormatter"/> on generated types: for
/// random messages of every test type, the JSON decoded from the bytes alone equals what JsonFormatter writes for the
/// same bytes parsed into the generated class (numbers compared as numbers, the rest exactly, properties in order).
/// </summary>
public sealed class ProtoJsonDecoderProperties
{
    private static readonly TypeRegistry AnyTypes = TypeRegistry.FromFiles(EverythingReflection.Descriptor, CommonReflection.Descriptor, TimestampReflection.Descriptor, WrappersReflection.Descriptor, StructReflection.Descriptor);
    private static readonly JsonFormatter Formatter = new(JsonFormatter.Settings.Default.WithTypeRegistry(AnyTypes));
    private static readonly ProtoJsonDecoder Decoder = new([EverythingReflection.Descriptor]);

    /// <summary>Every message type of the test .proto files (generated into this assembly), and the well-known types.</summary>
    private static readonly MessageDescriptor[] AllTypes =
    [
        .. typeof(ProtoJsonDecoderProperties).Assembly.GetTypes()
            .Where(t => typeof(IMessage).IsAssignableFrom(t) && !t.IsAbstract && t.GetProperty("Descriptor", BindingFlags.Public | BindingFlags.Static) is not null)
            .Select(t => (MessageDescriptor)t.GetProperty("Descriptor", BindingFlags.Public | BindingFlags.Static)!.GetValue(null)!)
            .Where(d => !d.GetOptions()?.MapEntry ?? true),
        Timestamp.Descriptor, Duration.Descriptor, Struct.Descriptor, Value.Descriptor, ListValue.Descriptor, Any.Descriptor,
        Int64Value.Descriptor, FieldMask.Descriptor, Empty.Descriptor,
    ];

    public static TheoryData<string> Types() => [.. AllTypes.Select(d => d.File.Name + ":" + d.FullName)];

    [Theory]
    [MemberData(nameof(Types))]
    public void RandomMessages_DecodeFromTheirBytes_ExactlyAsJsonFormatterFormatsThem(string typeName)
    {
        MessageDescriptor type = AllTypes.First(d => d.File.Name + ":" + d.FullName == typeName);
        Gen.Int[0, int.MaxValue].Sample(
            seed =>
            {
                IMessage message = RandomMessages.Create(type, new Random(seed), AnyTypes);
                byte[] bytes = message.ToByteArray();
                string expected = Formatter.Format(type.Parser.ParseFrom(bytes));
                string actual = Decoder.Decode(type, bytes);
                AssertSameJson(expected, actual, $"{typeName}, seed {seed}");
            },
            iter: 300);
    }

    [Fact]
    public void UnpackedAndPackedEncodings_OfTheSameRepeatedField_DecodeAlike()
    {
        // Field 20 is packed in the schema; the same values written unpacked (one tag each) must read the same.
        byte[] packed = new Everything { PackedInt32S = { 1, -2, 300 } }.ToByteArray();
        var unpacked = new System.IO.MemoryStream();
        var output = new CodedOutputStream(unpacked);
        foreach (int value in new[] { 1, -2, 300 })
        {
            output.WriteTag(20, WireFormat.WireType.Varint);
            output.WriteInt32(value);
        }

        output.Flush();
        Assert.Equal(Decoder.Decode(Everything.Descriptor, packed), Decoder.Decode(Everything.Descriptor, unpacked.ToArray()));
        Assert.Equal("{\"packedInt32s\":[1,-2,300]}", Decoder.Decode(Everything.Descriptor, unpacked.ToArray()));
    }

    [Fact]
    public void UnknownFields_AreShownByNumber_NotLost()
    {
        // A newer writer's fields 90 (varint), 91 (string) and 92 (fixed32) and 93 given twice.
        byte[] bytes = [.. new Money { Currency = "EUR" }.ToByteArray(), 0xD0, 0x05, 0x07, 0xDA, 0x05, 0x02, 0x68, 0x69, 0xE5, 0x05, 1, 0, 0, 0, 0xE8, 0x05, 1, 0xE8, 0x05, 2];
        Assert.Equal(
            "{\"currency\":\"EUR\",\"@unknown\":{\"90\":\"7\",\"91\":\"aGk=\",\"92\":1,\"93\":[\"1\",\"2\"]}}",
            Decoder.Decode(Money.Descriptor, bytes));
    }

    [Fact]
    public void AnAnyOfATypeNotAtHand_IsItsTypeUrlAndBase64()
    {
        var any = new Any { TypeUrl = "type.googleapis.com/other.v1.Secret", Value = ByteString.CopyFrom(1, 2, 3) };
        Assert.Equal("{\"@type\":\"type.googleapis.com/other.v1.Secret\",\"value\":\"AQID\"}", Decoder.Decode(Any.Descriptor, any.ToByteArray()));
    }

    [Theory]
    [InlineData(new byte[] { 0x08 }, "truncated varint", 1)]
    [InlineData(new byte[] { 0x0A, 0x05, 0x61 }, "field 1 declares 5 bytes, 1 are left", 1)]
    [InlineData(new byte[] { 0x0A, 0x00, 0x0F }, "wire type 7", 2)]
    [InlineData(new byte[] { 0x00 }, "invalid field number 0", 0)]
    public void MalformedPayloads_AreRejectedWithTheOffendingByte(byte[] payload, string reason, int offset)
    {
        PayloadDecodeException e = Assert.Throws<PayloadDecodeException>(() => Decoder.Decode(Money.Descriptor, payload));
        Assert.Contains(reason, e.Message, StringComparison.Ordinal);
        Assert.Equal(offset, e.Offset);
    }

    /// <summary>Same JSON: same structure, property names in the same order, same strings, numbers equal as numbers.</summary>
    private static void AssertSameJson(string expected, string actual, string context)
    {
        using JsonDocument e = JsonDocument.Parse(expected);
        using JsonDocument a = JsonDocument.Parse(actual);
        Assert.True(Same(e.RootElement, a.RootElement), $"{context}\nJsonFormatter: {expected}\ndecoder:       {actual}");
    }

    private static bool Same(JsonElement e, JsonElement a) => e.ValueKind == a.ValueKind && e.ValueKind switch
    {
        JsonValueKind.Object => e.EnumerateObject().Select(p => p.Name).SequenceEqual(a.EnumerateObject().Select(p => p.Name))
            && e.EnumerateObject().Zip(a.EnumerateObject()).All(p => Same(p.First.Value, p.Second.Value)),
        JsonValueKind.Array => e.GetArrayLength() == a.GetArrayLength() && e.EnumerateArray().Zip(a.EnumerateArray()).All(p => Same(p.First, p.Second)),
        JsonValueKind.String => e.GetString() == a.GetString(),
        JsonValueKind.Number => e.GetDouble().Equals(a.GetDouble()),
        _ => true,
    };
}
