using System.Linq;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.Framing;
using KafkaProtobuf.Tests.Support;
using Xunit;

namespace KafkaProtobuf.Tests.Deserialization;

/// <summary>Every frame Confluent's .NET serializer 2.15.0 wrote (Vectors/) must read back, and be written back, exactly.</summary>
public class ConfluentVectorTests
{
    public static TheoryData<string> Vectors => ConfluentVector.Names();

    [Fact]
    public void AllFortyVectorsAreLoaded() => Assert.Equal(40, ConfluentVector.ByName.Count);

    [Theory]
    [MemberData(nameof(Vectors))]
    public void FrameReader_FindsTheIdPathAndPayloadConfluentWrote(string name)
    {
        ConfluentVector v = ConfluentVector.ByName[name];
        Frame frame = FrameReader.Default.Read(v.Data, v.Context());

        Assert.Equal(v.Identifier, frame.SchemaId);
        Assert.Equal(v.Placement, frame.SchemaIdPlacement);
        Assert.Equal(v.IndexPath, frame.MessageIndexPath.ToArray());
        Assert.Equal(v.Payload, frame.Payload.ToArray());
        Assert.Equal(v.Data.Length - v.Payload.Length, frame.PayloadOffset);
    }

    [Theory]
    [MemberData(nameof(Vectors))]
    public void Deserializer_EqualsABareParseOfThePayload(string name)
    {
        ConfluentVector v = ConfluentVector.ByName[name];
        TelemetryTypes.ITypeCase type = TelemetryTypes.For(v.Type);

        IMessage? message = type.Deserialize(v.Data, v.Context());

        Assert.NotNull(message);
        Assert.Equal(v.Type, message.Descriptor.FullName);
        Assert.Equal(type.ParsePayload(v.Payload), message);
    }

    [Theory]
    [MemberData(nameof(Vectors))]
    public async Task AsyncDeserializer_EqualsABareParseOfThePayload(string name)
    {
        ConfluentVector v = ConfluentVector.ByName[name];
        TelemetryTypes.ITypeCase type = TelemetryTypes.For(v.Type);

        IMessage? message = await type.DeserializeAsync(v.Data, v.Context());

        Assert.Equal(type.ParsePayload(v.Payload), message);
    }

    [Theory]
    [MemberData(nameof(Vectors))]
    public void Serializer_ReproducesTheRecordAndHeadersByteForByte(string name)
    {
        ConfluentVector v = ConfluentVector.ByName[name];
        TelemetryTypes.ITypeCase type = TelemetryTypes.For(v.Type);
        IMessage message = type.ParsePayload(v.Payload);
        var headers = new Headers();
        var context = new SerializationContext(v.Component, "telemetry", headers);

        byte[]? data = type.Serialize(message, v.Identifier, new FramedSerializerOptions { SchemaIdPlacement = v.Placement }, context);

        Assert.Equal(v.Data, data);
        Assert.Equal(v.Headers.Select(h => (h.Key, h.Value)), headers.Select(h => (h.Key, h.GetValueBytes())));
    }

    [Theory]
    [MemberData(nameof(Vectors))]
    public void Serializer_ComputesThePathConfluentWrote(string name)
    {
        ConfluentVector v = ConfluentVector.ByName[name];
        Assert.Equal(v.IndexPath, TelemetryTypes.For(v.Type).SerializerPath(v.Identifier));
    }

    [Fact]
    public void MapEntryType_TakesTheFirstNestedIndex()
    {
        // Device.labels declares the hidden LabelsEntry first, so Location is [1, 1], not [1, 0].
        Assert.Equal([1, 1], new FramedProtobufSerializer<Vectors.Telemetry.V1.Device.Types.Location>(SchemaIdentifier.FromId(1)).MessageIndexPath);
        Assert.Equal([1, 2, 0], new FramedProtobufSerializer<Vectors.Telemetry.V1.Device.Types.Firmware.Types.Signature>(SchemaIdentifier.FromId(1)).MessageIndexPath);
    }
}
