using System;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.Framing;
using Vectors.Telemetry.V1;
using Xunit;

namespace KafkaProtobuf.Tests.Framing;

/// <summary>
/// Records as <c>@kafkajs/confluent-schema-registry</c> writes them: magic byte 0, big-endian schema id, then the payload,
/// with no message-index array. Read only with <see cref="MessageIndexPresence.Absent"/>, never guessed.
/// </summary>
public sealed class MessageIndexPresenceAbsentTests
{
    private const int SchemaId = 7;

    private static readonly SerializationContext Value = new(MessageComponentType.Value, "kafkajs.devices", []);

    /// <summary>What KafkaJS's encoder writes: <c>Buffer.concat([0x00, int32BE(id), payload])</c>.</summary>
    private static byte[] KafkaJsFrame(IMessage message) => [0, 0, 0, 0, SchemaId, .. message.ToByteArray()];

    /// <summary>First payload byte 0x0A (field 1, length-delimited): even, so it reads as an index count of 5.</summary>
    private static readonly Device EvenFirstByte = new() { Id = "device-42", Location = new Device.Types.Location { Lat = 51.05 } };

    /// <summary>First payload byte 0x11 (field 2, a double): odd, so it reads as a negative index count.</summary>
    private static readonly Reading OddFirstByte = new() { Value = 21.5, Delta = -3 };

    [Fact]
    public void ThePayloadsFirstBytes_AreEvenAndOdd_AsTheTestsNeed()
    {
        Assert.Equal(0x0A, EvenFirstByte.ToByteArray()[0]);
        Assert.Equal(0x11, OddFirstByte.ToByteArray()[0]);
    }

    [Fact]
    public void WithoutTheOption_KafkaJsRecords_GetTheOneDocumentedException()
    {
        var devices = new FramedProtobufDeserializer<Device>();
        var readings = new FramedProtobufDeserializer<Reading>();
        var multi = new MultiTypeProtobufDeserializer([TelemetryReflection.Descriptor], null);

        InvalidFrameException even = Assert.Throws<InvalidFrameException>(() => devices.Deserialize(KafkaJsFrame(EvenFirstByte), false, Value));
        Assert.Equal(SchemaIdentifier.FromId(SchemaId), even.SchemaId);
        Assert.Equal(FrameErrorCode.NegativeMessageIndex, even.ErrorCode); // count 5, then "device-42" read as indexes
        InvalidFrameException odd = Assert.Throws<InvalidFrameException>(() => readings.Deserialize(KafkaJsFrame(OddFirstByte), false, Value));
        Assert.Equal(FrameErrorCode.NegativeMessageIndexCount, odd.ErrorCode);
        Assert.Equal(5, odd.Offset);
        Assert.Throws<InvalidFrameException>(() => multi.Deserialize(KafkaJsFrame(EvenFirstByte), false, Value));
        Assert.Throws<InvalidFrameException>(() => multi.Deserialize(KafkaJsFrame(OddFirstByte), false, Value));
    }

    [Fact]
    public void WithTheOption_TheTypedDeserializer_ReadsTheRightMessage_EvenOrOddFirstByte()
    {
        var options = new FramedDeserializerOptions { Framing = { MessageIndexPresence = MessageIndexPresence.Absent } };

        Assert.Equal(EvenFirstByte, new FramedProtobufDeserializer<Device>(options).Deserialize(KafkaJsFrame(EvenFirstByte), false, Value));
        Assert.Equal(OddFirstByte, new FramedProtobufDeserializer<Reading>(options).Deserialize(KafkaJsFrame(OddFirstByte), false, Value));
    }

    [Fact]
    public void WithTheOption_TheMultiTypeDeserializer_ReadsPathZero_TheWritersFirstMessageType()
    {
        var multi = new MultiTypeProtobufDeserializer([TelemetryReflection.Descriptor], new MultiTypeDeserializerOptions { Framing = { MessageIndexPresence = MessageIndexPresence.Absent } });

        IMessage? message = multi.Deserialize(KafkaJsFrame(OddFirstByte), false, Value);

        Assert.Equal(OddFirstByte, Assert.IsType<Reading>(message)); // Reading is the first message of telemetry.proto
    }

    [Fact]
    public void WithTheOption_TheFrameReader_PutsThePayloadRightAfterTheSchemaId_AndThePathIsZero()
    {
        var reader = new FrameReader(new FramingOptions { MessageIndexEncoding = MessageIndexEncoding.ZigZag, SchemaIdLookup = SchemaIdLookup.HeaderThenPrefix, MessageIndexPresence = MessageIndexPresence.Absent });
        byte[] data = KafkaJsFrame(EvenFirstByte);

        Assert.True(reader.TryRead(data, Value, out Frame frame, out FrameError error), error.ToString());
        Assert.Equal(SchemaIdentifier.FromId(SchemaId), frame.SchemaId);
        Assert.Equal(5, frame.PayloadOffset);
        Assert.Equal([0], frame.MessageIndexPath.ToArray());
        Assert.Equal(EvenFirstByte.ToByteArray(), frame.Payload.ToArray());
        Assert.Equal(MessageIndexPresence.Absent, reader.MessageIndexPresence);

        // The framing faults before the payload are still found.
        Assert.False(reader.TryReadPrefixed([0, 0, 0], out _, out error));
        Assert.Equal(FrameErrorCode.TruncatedSchemaId, error.Code);
        Assert.False(reader.TryReadPrefixed([9, 0, 0, 0, 7, 0x0A], out _, out error));
        Assert.Equal(FrameErrorCode.UnknownMagicByte, error.Code);

        // In a schema-id header the value is the magic byte and the id alone.
        var headers = new Headers { { SchemaIdHeaderNames.Value, new byte[] { 0, 0, 0, 0, SchemaId } } };
        Assert.True(reader.TryRead(EvenFirstByte.ToByteArray(), new SerializationContext(MessageComponentType.Value, "t", headers), out frame, out error), error.ToString());
        Assert.Equal(SchemaIdPlacement.Header, frame.SchemaIdPlacement);
        Assert.Equal(EvenFirstByte.ToByteArray(), frame.Payload.ToArray());
    }

    [Fact]
    public void WhyThereIsNoGuessing_AnEvenFirstPayloadByteIsAValidIndexCount_SoAKafkaJsRecordCanReadAsAnotherPath()
    {
        // Confluent's JavaScript heuristic reads a negative count as "no indexes". An even first byte is not negative:
        // Device { Id = "\u0002\u0002\u0002\u0002" } encodes as 0A 04 02 02 02 02, which is a well-formed path
        // [2, 1, 1, 1, 1] followed by an empty payload. Read with indexes, it is a frame, just not this record.
        var device = new Device { Id = "\u0002\u0002\u0002\u0002" };
        byte[] data = KafkaJsFrame(device);

        Assert.True(FrameReader.Default.TryReadPrefixed(data, out Frame frame, out _));
        Assert.Equal([2, 1, 1, 1, 1], frame.MessageIndexPath.ToArray());
        Assert.True(frame.Payload.IsEmpty);

        // Only the explicit option reads it right.
        var reader = new FrameReader(new FramingOptions { MessageIndexEncoding = MessageIndexEncoding.ZigZag, SchemaIdLookup = SchemaIdLookup.HeaderThenPrefix, MessageIndexPresence = MessageIndexPresence.Absent });
        Assert.True(reader.TryReadPrefixed(data, out frame, out _));
        Assert.Equal(device, Device.Parser.ParseFrom(frame.Payload));

        // And a Confluent record (path [1], 02 02) read with the option is misread the other way: so it is per topic.
        byte[] confluent = FrameWriter.ToSchemaIdAndIndexes(SchemaIdentifier.FromId(SchemaId), [1], MessageIndexEncoding.ZigZag);
        byte[] confluentRecord = [.. confluent, .. device.ToByteArray()];
        Assert.True(reader.TryReadPrefixed(confluentRecord, out frame, out _));
        Assert.Equal(new byte[] { 2, 2 }, frame.Payload[..2].ToArray());
    }

    [Fact]
    public void AbsentWithLegacyUnsigned_IsRejected_WhereverTheyMeet()
    {
        ArgumentException reader = Assert.Throws<ArgumentException>(() => new FrameReader(new FramingOptions { MessageIndexEncoding = MessageIndexEncoding.LegacyUnsigned, SchemaIdLookup = SchemaIdLookup.HeaderThenPrefix, MessageIndexPresence = MessageIndexPresence.Absent }));
        Assert.Contains("cannot be combined", reader.Message, StringComparison.Ordinal);
        Assert.Equal("options", reader.ParamName);
        Assert.Throws<ArgumentException>(() => new FramedProtobufDeserializer<Device>(new FramedDeserializerOptions { Framing = { MessageIndexPresence = MessageIndexPresence.Absent, MessageIndexEncoding = MessageIndexEncoding.LegacyUnsigned } }));
        Assert.Throws<ArgumentException>(() => new MultiTypeProtobufDeserializer([TelemetryReflection.Descriptor], new MultiTypeDeserializerOptions { Framing = { MessageIndexPresence = MessageIndexPresence.Absent, MessageIndexEncoding = MessageIndexEncoding.LegacyUnsigned } }));
        Assert.Throws<ArgumentOutOfRangeException>(() => new FrameReader(new FramingOptions { MessageIndexEncoding = MessageIndexEncoding.ZigZag, SchemaIdLookup = SchemaIdLookup.HeaderThenPrefix, MessageIndexPresence = (MessageIndexPresence)2 }));
    }
}
