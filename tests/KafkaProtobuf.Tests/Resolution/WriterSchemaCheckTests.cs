using System;
using System.Linq;
using Confluent.Kafka;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf.Fuzz;
using KafkaProtobuf.Tests.Support;
using Vectors.Telemetry.V1;
using Xunit;

namespace KafkaProtobuf.Tests.Resolution;

/// <summary>
/// VerifyCompatibility: a writer's type whose field number has another wire type than the reader's fails with its own
/// code, once, before any record of it is parsed; added and removed fields pass.
/// </summary>
public class WriterSchemaCheckTests
{
    private static readonly SerializationContext Value = new(MessageComponentType.Value, "telemetry");

    private static FileDescriptor WriterWith(string message, Action<DescriptorProto> edit) =>
        WriterFile.From(TelemetryReflection.Descriptor, proto => edit(Find(proto, message)));

    private static DescriptorProto Find(FileDescriptorProto proto, string path)
    {
        string[] names = path.Split('.');
        DescriptorProto type = proto.MessageType.Single(m => m.Name == names[0]);
        foreach (string nested in names.Skip(1))
        {
            type = type.NestedType.Single(m => m.Name == nested);
        }

        return type;
    }

    private static byte[] ReadingFrame => [0x00, 0, 0, 0, 3, 0x00, .. new Reading { SensorId = "s" }.ToByteArray()];

    [Fact]
    public void AFieldWithAnotherWireType_IsIncompatible_WithBothFieldsNamed()
    {
        // Writer: Reading.delta (field 3) is a string; the reader's is sint64.
        FileDescriptor writer = WriterWith("Reading", r => r.Field.Single(f => f.Number == 3).Type = FieldDescriptorProto.Types.Type.String);
        var deserializer = new MultiTypeProtobufDeserializer([TelemetryReflection.Descriptor], new MultiTypeDeserializerOptions { WriterSchemas = { Source = new FunctionSchemaSource(_ => writer), VerifyCompatibility = true } });

        InvalidFrameException e = Assert.Throws<InvalidFrameException>(() => deserializer.Deserialize(ReadingFrame, false, Value));
        Assert.Equal(FrameErrorCode.IncompatibleWriterSchema, e.ErrorCode);
        Assert.Equal(5, e.Offset);
        Assert.Contains("field 3: the writer's vectors.telemetry.v1.Reading.delta is string (length-delimited), the reader's vectors.telemetry.v1.Reading.delta is sint64 (varint)", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void AnIncompatibilityInANestedMessage_IsFoundThroughTheContainingType()
    {
        // Device.Location.lat (double) written as a float: 32-bit against 64-bit, two levels down.
        FileDescriptor writer = WriterWith("Device.Location", l => l.Field.Single(f => f.Name == "lat").Type = FieldDescriptorProto.Types.Type.Float);
        var typed = new FramedProtobufDeserializer<Device>(new FramedDeserializerOptions { WriterSchemas = { Source = new FunctionSchemaSource(_ => writer), VerifyCompatibility = true } });
        byte[] frame = [0x00, 0, 0, 0, 3, 0x02, 0x02, .. new Device { Id = "d" }.ToByteArray()];

        Assert.False(typed.TryDeserialize(frame, false, Value, out _, out FrameError error));
        Assert.Equal(FrameErrorCode.IncompatibleWriterSchema, error.Code);
        InvalidFrameException e = Assert.Throws<InvalidFrameException>(() => typed.Deserialize(frame, false, Value));
        Assert.Contains("vectors.telemetry.v1.Device.Location.lat is float (32-bit)", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void TheFaultIsReportedBeforeAnyParse_EvenForAPayloadThatWouldNotParse()
    {
        FileDescriptor writer = WriterWith("Reading", r => r.Field.Single(f => f.Number == 3).Type = FieldDescriptorProto.Types.Type.String);
        var deserializer = new MultiTypeProtobufDeserializer([TelemetryReflection.Descriptor], new MultiTypeDeserializerOptions { WriterSchemas = { Source = new FunctionSchemaSource(_ => writer), VerifyCompatibility = true } });
        Assert.False(deserializer.TryDeserialize([0x00, 0, 0, 0, 3, 0x00, 0xff], false, Value, out _, out FrameError error));
        Assert.Equal(FrameErrorCode.IncompatibleWriterSchema, error.Code);
    }

    [Fact]
    public void AddedRemovedAndRenamedFields_AreCompatible()
    {
        FileDescriptor writer = WriterWith("Reading", r =>
        {
            r.Field.Remove(r.Field.Single(f => f.Number == 6));                     // removed
            r.Field.Single(f => f.Number == 2).Name = "reading";                  // renamed, same wire type
            r.Field.Single(f => f.Number == 2).JsonName = "reading";
            r.Field.Add(new FieldDescriptorProto { Name = "unit", JsonName = "unit", Number = 9, Type = FieldDescriptorProto.Types.Type.String, Label = FieldDescriptorProto.Types.Label.Optional }); // added
        });
        var deserializer = new MultiTypeProtobufDeserializer([TelemetryReflection.Descriptor], new MultiTypeDeserializerOptions { WriterSchemas = { Source = new FunctionSchemaSource(_ => writer), VerifyCompatibility = true } });
        Assert.IsType<Reading>(deserializer.Deserialize(ReadingFrame, false, Value));
    }

    [Fact]
    public void WithoutTheCheck_TheIncompatibleWriterIsParsedAsBefore()
    {
        FileDescriptor writer = WriterWith("Reading", r => r.Field.Single(f => f.Number == 3).Type = FieldDescriptorProto.Types.Type.String);
        var deserializer = new MultiTypeProtobufDeserializer([TelemetryReflection.Descriptor], new MultiTypeDeserializerOptions { WriterSchemas = { Source = new FunctionSchemaSource(_ => writer) } });
        Assert.IsType<Reading>(deserializer.Deserialize(ReadingFrame, false, Value));
    }

    [Fact]
    public void TypedVerifyCompatibility_NeedsTheWritersFiles()
    {
        ArgumentException e = Assert.Throws<ArgumentException>(() => new FramedProtobufDeserializer<Reading>(new FramedDeserializerOptions { WriterSchemas = { VerifyCompatibility = true } }));
        Assert.Contains("WriterSchemas.Source", e.Message, StringComparison.Ordinal);
    }
}
