using System;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.Framing;
using KafkaProtobuf.Tests.Support;
using Vectors.Telemetry.V1;
using Xunit;
using static KafkaProtobuf.Tests.Support.Hex;

namespace KafkaProtobuf.Tests.Deserialization;

public class WriterTypeAndTryDeserializeTests
{
    private static readonly FramedDeserializerOptions Verify = new() { VerifyWriterType = true };

    private static SerializationContext Value() => new(MessageComponentType.Value, "t", []);

    [Fact]
    public void VerifyWriterType_AcceptsTheTypesOwnPath()
    {
        ConfluentVector v = ConfluentVector.ByName["confluent-dotnet/prefix/value/Device.Firmware.Signature"];
        var deserializer = new FramedProtobufDeserializer<Device.Types.Firmware.Types.Signature>(Verify);
        Assert.Equal(Device.Types.Firmware.Types.Signature.Parser.ParseFrom(v.Payload), deserializer.Deserialize(v.Data, false, v.Context()));
    }

    [Fact]
    public void VerifyWriterType_RejectsAnotherTypesPath_NamingBoth()
    {
        // A Location record ([1, 1]) read as Device ([1]): off, it parses silently into the wrong type; on, it is rejected.
        ConfluentVector v = ConfluentVector.ByName["confluent-dotnet/header/value/Device.Location"];
        Assert.NotNull(new FramedProtobufDeserializer<Device>().Deserialize(v.Data, false, v.Context()));

        InvalidFrameException e = Assert.Throws<InvalidFrameException>(() =>
            new FramedProtobufDeserializer<Device>(Verify).Deserialize(v.Data, false, v.Context()));

        Assert.Equal(new FrameError(FrameErrorCode.UnexpectedMessageType, 17, FrameErrorLocation.SchemaIdHeader, v.Identifier), e.Error);
        Assert.Equal([1, 1], e.MessageIndexPath);
        Assert.Contains("expected vectors.telemetry.v1.Device at [1]", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void VerifyWriterType_LongFormZero_IsTheFirstType()
    {
        byte[] payload = new Reading { SensorId = "s-1" }.ToByteArray();
        Assert.Equal(new Reading { SensorId = "s-1" }, new FramedProtobufDeserializer<Reading>(Verify).Deserialize([.. Bytes("00 00000001 02 00"), .. payload], false, Value()));
    }

    [Fact]
    public void TryDeserialize_ReturnsTheMessage()
    {
        byte[] data = [.. Bytes("00 00000001 00"), .. new Reading { SensorId = "s" }.ToByteArray()];
        Assert.True(new FramedProtobufDeserializer<Reading>().TryDeserialize(data, false, Value(), out Reading? message, out FrameError error));
        Assert.Equal("s", message!.SensorId);
        Assert.Equal(default, error);
    }

    [Fact]
    public void TryDeserialize_Tombstone_IsSuccessWithNull()
    {
        Assert.True(new FramedProtobufDeserializer<Reading>().TryDeserialize(default, true, Value(), out Reading? message, out _));
        Assert.Null(message);
    }

    [Theory]
    [InlineData("", FrameErrorCode.EmptyData, 0)]
    [InlineData("7b", FrameErrorCode.UnknownMagicByte, 0)]
    [InlineData("00 00000001 03", FrameErrorCode.NegativeMessageIndexCount, 5)]
    [InlineData("00 00000001 00 0a 05 61", FrameErrorCode.InvalidPayload, 6)]
    public void TryDeserialize_ReportsWhatDeserializeWouldThrow(string hex, FrameErrorCode code, int offset)
    {
        var deserializer = new FramedProtobufDeserializer<Reading>();
        Assert.False(deserializer.TryDeserialize(Bytes(hex), false, Value(), out Reading? message, out FrameError error));
        Assert.Null(message);
        Assert.Equal(code, error.Code);
        Assert.Equal(offset, error.Offset);
        Assert.Equal(error, Assert.Throws<InvalidFrameException>(() => deserializer.Deserialize(Bytes(hex), false, Value())).Error);
    }

    [Fact]
    public void TryDeserialize_WrongWriterType_IsReportedWithoutThrowing()
    {
        Assert.False(new FramedProtobufDeserializer<Reading>(Verify).TryDeserialize(Bytes("00 00000001 02 02"), false, Value(), out _, out FrameError error));
        Assert.Equal(new FrameError(FrameErrorCode.UnexpectedMessageType, 5, FrameErrorLocation.RecordData, SchemaIdentifier.FromId(1)), error);
    }
}
