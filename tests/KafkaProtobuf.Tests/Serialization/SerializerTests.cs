using System;
using System.Linq;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.Framing;
using KafkaProtobuf.Tests.Support;
using Vectors.Telemetry.V1;
using Xunit;
using static KafkaProtobuf.Tests.Support.Hex;

namespace KafkaProtobuf.Tests.Serialization;

public class SerializerTests
{
    private static readonly Alert Sample = new() { DeviceId = "d-1", Severity = Alert.Types.Severity.Critical, Text = "hot" };
    private static readonly SchemaIdentifier Id42 = SchemaIdentifier.FromId(42);
    private static readonly FramedSerializerOptions HeaderPlacement = new() { SchemaIdPlacement = SchemaIdPlacement.Header };

    private static SerializationContext Value(Headers? headers) => new(MessageComponentType.Value, "alerts", headers);

    [Fact]
    public void Prefix_IsMagicIdPathThenPayload()
    {
        byte[] expected = [.. Bytes("00 0000002a 02 04"), .. Sample.ToByteArray()];
        Assert.Equal(expected, new FramedProtobufSerializer<Alert>(Id42).Serialize(Sample, Value([])));
    }

    [Fact]
    public void NullMessage_IsANullRecord()
    {
        var serializer = new FramedProtobufSerializer<Alert>(Id42);
        Assert.Null(serializer.Serialize(null, Value([])));
        Assert.Null(((ISerializer<Alert>)serializer).Serialize(null!, Value([])));
    }

    [Fact]
    public async Task NullMessage_IsACompletedNullTask() =>
        Assert.Null(await new FramedProtobufSerializer<Alert>(Id42).SerializeAsync(null, Value([])));

    [Fact]
    public async Task AsyncSerializer_WritesTheSameBytes()
    {
        var serializer = new FramedProtobufSerializer<Alert>(Id42);
        Assert.Equal(serializer.Serialize(Sample, Value([])), await ((IAsyncSerializer<Alert>)serializer).SerializeAsync(Sample, Value([])));
    }

    [Fact]
    public void HeaderPlacement_WritesTheBarePayloadAndOneHeader()
    {
        var headers = new Headers { { "trace", [1] } };
        byte[]? data = new FramedProtobufSerializer<Alert>(Id42, HeaderPlacement).Serialize(Sample, Value(headers));

        Assert.Equal(Sample.ToByteArray(), data);
        Assert.Equal(["trace", SchemaIdHeaderNames.Value], headers.Select(h => h.Key));
        Assert.Equal(Bytes("00 0000002a 02 04"), headers.GetLastBytes(SchemaIdHeaderNames.Value));
    }

    [Fact]
    public void HeaderPlacement_ReplacesAnEarlierSchemaIdHeader()
    {
        var headers = new Headers { { SchemaIdHeaderNames.Value, Bytes("00 00000001 00") } };
        new FramedProtobufSerializer<Alert>(Id42, HeaderPlacement).Serialize(Sample, Value(headers));
        Assert.Single(headers);
        Assert.Equal(Bytes("00 0000002a 02 04"), headers[0].GetValueBytes());
    }

    [Fact]
    public void HeaderPlacement_ForKeys_WritesTheKeyHeader()
    {
        var headers = new Headers();
        new FramedProtobufSerializer<Alert>(Id42, HeaderPlacement).Serialize(Sample, new SerializationContext(MessageComponentType.Key, "alerts", headers));
        Assert.Equal(SchemaIdHeaderNames.Key, Assert.Single(headers).Key);
    }

    [Fact]
    public void HeaderPlacement_GivesEachRecordItsOwnHeaderBytes()
    {
        var serializer = new FramedProtobufSerializer<Alert>(Id42, HeaderPlacement);
        var first = new Headers();
        var second = new Headers();
        serializer.Serialize(Sample, Value(first));
        serializer.Serialize(Sample, Value(second));
        first[0].GetValueBytes()[0] = 0x7f; // a caller scribbling on one record's header...
        Assert.Equal(0x00, second[0].GetValueBytes()[0]); // ...cannot change another's
    }

    [Fact]
    public void HeaderPlacement_WithoutHeaders_IsAClearError()
    {
        var serializer = new FramedProtobufSerializer<Alert>(Id42, HeaderPlacement);
        InvalidOperationException e = Assert.Throws<InvalidOperationException>(() => serializer.Serialize(Sample, Value(null)));
        Assert.Contains("headers", e.Message, StringComparison.Ordinal);

        Task<byte[]?> task = serializer.SerializeAsync(Sample, Value(null));
        Assert.True(task.IsFaulted);
    }

    [Fact]
    public void PrefixPlacement_RemovesAStaleSchemaIdHeaderOfItsComponent()
    {
        // A record that copied headers from a header-framed record would otherwise be misread by Dual readers.
        var headers = new Headers
        {
            { SchemaIdHeaderNames.Value, Bytes("00 00000001 00") },
            { SchemaIdHeaderNames.Key, Bytes("00 00000002 00") },
        };
        byte[]? data = new FramedProtobufSerializer<Alert>(Id42).Serialize(Sample, Value(headers));

        Assert.Equal(SchemaIdHeaderNames.Key, Assert.Single(headers).Key);
        Assert.Equal(Sample, new FramedProtobufDeserializer<Alert>().Deserialize(data, false, Value(headers)));
    }

    [Fact]
    public void LegacyEncoding_WritesUnsignedIndexes()
    {
        var serializer = new FramedProtobufSerializer<Device.Types.Firmware.Types.Signature>(
            Id42, new FramedSerializerOptions { MessageIndexEncoding = MessageIndexEncoding.LegacyUnsigned });
        Assert.Equal(Bytes("00 0000002a 03 01 02 00"), serializer.Serialize(new(), Value([])));
    }

    [Fact]
    public void PathZero_IsOneZeroByteInBothEncodings()
    {
        foreach (MessageIndexEncoding encoding in new[] { MessageIndexEncoding.ZigZag, MessageIndexEncoding.LegacyUnsigned })
        {
            var serializer = new FramedProtobufSerializer<Reading>(Id42, new FramedSerializerOptions { MessageIndexEncoding = encoding });
            Assert.Equal(Bytes("00 0000002a 00"), serializer.Serialize(new(), Value([])));
        }
    }

    [Fact]
    public void GuidInThePrefix_IsWrittenInBigEndianOrder()
    {
        var guid = Guid.Parse("535dfcf3-ca23-439a-a2aa-7cf32e6ddf10");
        byte[]? data = new FramedProtobufSerializer<Reading>(SchemaIdentifier.FromGuid(guid)).Serialize(new(), Value([]));
        Assert.Equal(Bytes("01 535dfcf3ca23439aa2aa7cf32e6ddf10 00"), data);
    }

    [Fact]
    public void EmptySchemaIdentifier_IsRejected() =>
        Assert.Throws<ArgumentException>(() => new FramedProtobufSerializer<Reading>(default));

    [Fact]
    public void UndefinedOptionValues_AreRejected()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() =>
            new FramedProtobufSerializer<Reading>(Id42, new FramedSerializerOptions { SchemaIdPlacement = (SchemaIdPlacement)5 }));
        Assert.Throws<ArgumentOutOfRangeException>(() =>
            new FramedProtobufSerializer<Reading>(Id42, new FramedSerializerOptions { MessageIndexEncoding = (MessageIndexEncoding)5 }));
    }

    [Theory]
    [InlineData(SchemaIdPlacement.Prefix, MessageIndexEncoding.ZigZag)]
    [InlineData(SchemaIdPlacement.Prefix, MessageIndexEncoding.LegacyUnsigned)]
    [InlineData(SchemaIdPlacement.Header, MessageIndexEncoding.ZigZag)]
    [InlineData(SchemaIdPlacement.Header, MessageIndexEncoding.LegacyUnsigned)]
    public void SerializeThenDeserialize_RoundTripsEveryTelemetryType(SchemaIdPlacement placement, MessageIndexEncoding encoding)
    {
        foreach (ConfluentVector v in ConfluentVector.ByName.Values.Where(v => v.Component == MessageComponentType.Value && v.Placement == SchemaIdPlacement.Prefix))
        {
            TelemetryTypes.ITypeCase type = TelemetryTypes.For(v.Type);
            IMessage message = type.ParsePayload(v.Payload);
            var headers = new Headers();
            var context = new SerializationContext(MessageComponentType.Value, "telemetry", headers);
            var serializerOptions = new FramedSerializerOptions { SchemaIdPlacement = placement, MessageIndexEncoding = encoding };

            byte[] data = type.Serialize(message, Id42, serializerOptions, context)!;
            IMessage? back = type.Deserialize(data, context, new FramedDeserializerOptions { Framing = { MessageIndexEncoding = encoding } });

            Assert.Equal(message, back);
            Frame frame = new FrameReader(new FramingOptions { MessageIndexEncoding = encoding, SchemaIdLookup = SchemaIdLookup.HeaderThenPrefix }).Read(data, context);
            Assert.Equal(v.IndexPath, frame.MessageIndexPath.ToArray());
            Assert.Equal(placement, frame.SchemaIdPlacement);
        }
    }
}
