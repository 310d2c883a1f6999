using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf.Framing;
using KafkaProtobuf.Fuzz;
using KafkaProtobuf.Tests.Support;
using Vectors.Telemetry.V1;
using Xunit;

namespace KafkaProtobuf.Tests.Resolution;

/// <summary>
/// Records whose path is relative to the writer's file, where the writer declared the messages in another order than
/// the reader's generated .proto: read in the writer's file (as a schema registry returns it) and matched by full
/// name, every record gets its own type; read in the reader's file, the same paths name the wrong types.
/// </summary>
public class ResolveByNameTests
{
    private static readonly SerializationContext Value = new(MessageComponentType.Value, "telemetry");

    // The writer declared Alert first, then Device, then Reading: Alert is [0], Device [1], Reading [2].
    private static readonly FileDescriptor Writer = WriterFile.From(TelemetryReflection.Descriptor, WriterFile.Reorder("Alert", "Device", "Reading"));

    private static byte[] Frame(int schemaId, byte[] path, IMessage message) =>
        [0x00, 0, 0, 0, (byte)schemaId, .. path, .. message.ToByteArray()];

    private static readonly Alert AnAlert = new() { DeviceId = "d-1", Severity = Alert.Types.Severity.Critical, Text = "hot" };
    private static readonly Reading AReading = new() { SensorId = "s-1", Value = 21.5 };

    [Fact]
    public void WriterFileWithReorderedMessages_EachRecordGetsItsOwnType()
    {
        var deserializer = new MultiTypeProtobufDeserializer(
            [TelemetryReflection.Descriptor],
            new MultiTypeDeserializerOptions { WriterSchemas = { Source = new FunctionSchemaSource(id => id.Id == 5 ? Writer : null) } });

        Assert.Equal(AnAlert, deserializer.Deserialize(Frame(5, [0x00], AnAlert), false, Value));          // [0] in the writer's file
        Assert.Equal(AReading, deserializer.Deserialize(Frame(5, [0x02, 0x04], AReading), false, Value));   // [2]
        Device.Types.Location location = new() { Lat = 1, Lon = 2 };
        Assert.Equal(location, deserializer.Deserialize(Frame(5, [0x04, 0x02, 0x02], location), false, Value)); // [1, 1]
    }

    [Fact]
    public void TheSameRecords_ReadByPathInTheReadersFile_AreMisrouted()
    {
        // What this fixes: with the reader's own file, [0] is Reading, so the Alert's bytes parse as a (wrong) Reading.
        var byPath = MultiTypeProtobufDeserializer.ForFiles(TelemetryReflection.Descriptor);
        IMessage? misread = byPath.Deserialize(Frame(5, [0x00], AnAlert), false, Value);
        Assert.IsType<Reading>(misread);
        Assert.NotEqual<IMessage>(AnAlert, misread!);
    }

    [Fact]
    public void AWriterTypeTheReaderWasNotGiven_IsUnregistered_OrSkippedNamingTheWritersType()
    {
        var only = new MultiTypeProtobufDeserializer([Reading.Descriptor], new MultiTypeDeserializerOptions { WriterSchemas = { Source = new FunctionSchemaSource(_ => Writer) } });
        InvalidFrameException e = Assert.Throws<InvalidFrameException>(() => only.Deserialize(Frame(5, [0x00], AnAlert), false, Value));
        Assert.Equal(FrameErrorCode.UnregisteredMessageType, e.ErrorCode);
        Assert.Contains("the record is a vectors.telemetry.v1.Alert", e.Message, StringComparison.Ordinal);

        var skipping = new MultiTypeProtobufDeserializer(
            [Reading.Descriptor],
            new MultiTypeDeserializerOptions { WriterSchemas = { Source = new FunctionSchemaSource(_ => Writer) }, UnregisteredMessageTypes = UnregisteredMessageTypeHandling.Skip });
        SkippedMessage skipped = Assert.IsType<SkippedMessage>(skipping.Deserialize(Frame(5, [0x00], AnAlert), false, Value));
        Assert.Equal("vectors.telemetry.v1.Alert", skipped.WriterType.FullName);
    }

    [Fact]
    public void TypedDeserializer_VerifyWriterTypeWithAResolver_ComparesByNameAndSurvivesReordering()
    {
        var options = new FramedDeserializerOptions { VerifyWriterType = true, WriterSchemas = { Source = new FunctionSchemaSource(_ => Writer) } };
        var readings = new FramedProtobufDeserializer<Reading>(options);

        Assert.Equal(AReading, readings.Deserialize(Frame(5, [0x02, 0x04], AReading), false, Value)); // [2] is Reading in the writer's file
        InvalidFrameException e = Assert.Throws<InvalidFrameException>(() => readings.Deserialize(Frame(5, [0x00], AnAlert), false, Value));
        Assert.Equal(FrameErrorCode.UnexpectedMessageType, e.ErrorCode);
        Assert.Contains("the record is a vectors.telemetry.v1.Alert, expected vectors.telemetry.v1.Reading", e.Message, StringComparison.Ordinal);

        // Without the resolver the path is compared with Reading's own [0]: the reordered writer's Reading is rejected.
        var byPath = new FramedProtobufDeserializer<Reading>(new FramedDeserializerOptions { VerifyWriterType = true });
        Assert.Equal(FrameErrorCode.UnexpectedMessageType, Assert.Throws<InvalidFrameException>(() => byPath.Deserialize(Frame(5, [0x02, 0x04], AReading), false, Value)).ErrorCode);
    }

    [Fact]
    public void TypedDeserializer_UnknownIdOrPath_HaveTheirOwnCodes()
    {
        var readings = new FramedProtobufDeserializer<Reading>(new FramedDeserializerOptions { VerifyWriterType = true, WriterSchemas = { Source = new FunctionSchemaSource(id => id.Id == 5 ? Writer : null) } });

        Assert.False(readings.TryDeserialize(Frame(6, [0x00], AReading), false, Value, out _, out FrameError unknownId));
        Assert.Equal(FrameErrorCode.UnknownSchemaId, unknownId.Code);
        Assert.False(readings.TryDeserialize(Frame(5, [0x02, 0x10], AReading), false, Value, out _, out FrameError unknownPath));
        Assert.Equal(FrameErrorCode.UnknownMessageType, unknownPath.Code);
        Assert.Equal(5, unknownPath.Offset);
    }

    [Fact]
    public void ResolvedHotPath_AllocatesOnlyTheMessage()
    {
        var deserializer = new MultiTypeProtobufDeserializer([TelemetryReflection.Descriptor], new MultiTypeDeserializerOptions { WriterSchemas = { Source = new FunctionSchemaSource(_ => Writer) } });
        var typed = new FramedProtobufDeserializer<Reading>(new FramedDeserializerOptions { VerifyWriterType = true, WriterSchemas = { Source = new FunctionSchemaSource(_ => Writer), VerifyCompatibility = true } });
        byte[] frame = Frame(5, [0x02, 0x04], AReading);
        byte[] payload = AReading.ToByteArray();

        long bare = AllocationCounter.Least(() => Reading.Parser.ParseFrom(new ReadOnlySpan<byte>(payload)), warmUps: 50, callsPerAttempt: 1000);
        Assert.Equal(bare, AllocationCounter.Least(() => deserializer.Deserialize(frame, false, Value), warmUps: 50, callsPerAttempt: 1000));
        Assert.Equal(bare, AllocationCounter.Least(() => typed.Deserialize(frame, false, Value), warmUps: 50, callsPerAttempt: 1000));
    }
}
