using System;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.Framing;
using KafkaProtobuf.Tests.Support;
using Vectors.Telemetry.V1;
using Xunit;
using static KafkaProtobuf.Tests.Support.Hex;

namespace KafkaProtobuf.Tests.Deserialization;

/// <summary>
/// The hot path allocates nothing but the message: counted after a warm-up, over many calls, so one allocation per
/// call shows as thousands of bytes.
/// </summary>
public class AllocationTests
{
    private static readonly Reading Sample = new() { SensorId = "s-1", Value = 21.5, Samples = { 1, 2, 3 } };

    private static long AllocatedBy(Action action) => AllocationCounter.Least(action, warmUps: 50, callsPerAttempt: 1_000);

    public static TheoryData<string, string?> Frames => new()
    {
        { "00 0000002a 00 0a0373", null },                                 // [0]
        { "00 0000002a 02 02 0a0373", null },                              // [1]
        { "00 0000002a 06 02 04 00 0a0373", null },                        // [1, 2, 0]
        { "01 535dfcf3ca23439aa2aa7cf32e6ddf10 06 02 04 00 0a0373", null }, // GUID prefix
        { "0a0373", "01 535dfcf3ca23439aa2aa7cf32e6ddf10 04 02 02" },      // header id, [1, 1]
        { "00 0000002a 03 0a0373", null },                                 // rejected: negative count
        { "0a0373", "7b" },                                                // rejected: header magic byte
    };

    [Theory]
    [MemberData(nameof(Frames))]
    public void FrameReader_AllocatesNothing_ValidOrNot(string data, string? header)
    {
        byte[] bytes = Bytes(data);
        var headers = new Headers { { "trace-id", [1, 2] } };
        if (header is not null)
        {
            headers.Add(SchemaIdHeaderNames.Value, Bytes(header));
        }

        var context = new SerializationContext(MessageComponentType.Value, "t", headers);
        long sum = 0;

        long allocated = AllocatedBy(() =>
        {
            if (FrameReader.Default.TryRead(bytes, context, out Frame frame, out FrameError error))
            {
                foreach (int index in frame.MessageIndexPath)
                {
                    sum += index;
                }

                sum += frame.Payload.Length + frame.MessageIndexPath.Count + (frame.MessageIndexPath.IsFirstMessageType ? 1 : 0);
            }
            else
            {
                sum += error.Offset + (int)error.Code;
            }
        });

        Assert.Equal(0, allocated);
        Assert.NotEqual(0, sum);
    }

    [Theory]
    [InlineData(MessageComponentType.Value)]
    [InlineData(MessageComponentType.Key)]
    public void SyncDeserializer_AllocatesExactlyWhatABareParseAllocates(MessageComponentType component)
    {
        byte[] payload = Sample.ToByteArray();
        byte[] frame = [.. Bytes("00 0000002a 00"), .. payload];
        var deserializer = new FramedProtobufDeserializer<Reading>();
        var context = new SerializationContext(component, "t", [new Header("trace-id", [1])]);
        Reading? last = null;

        long bare = AllocatedBy(() => last = Reading.Parser.ParseFrom(payload.AsSpan()));
        long ours = AllocatedBy(() => last = deserializer.Deserialize(frame, isNull: false, context));

        Assert.True(bare > 0);
        Assert.Equal(bare, ours);
        Assert.Equal(Sample, last);
    }

    [Fact]
    public void SyncDeserializer_WithHeaderId_AllocatesExactlyWhatABareParseAllocates()
    {
        ConfluentVector v = ConfluentVector.ByName["confluent-dotnet/header/value/Device"];
        var deserializer = new FramedProtobufDeserializer<Device>();
        SerializationContext context = v.Context();

        long bare = AllocatedBy(() => Device.Parser.ParseFrom(v.Payload.AsSpan()));
        long ours = AllocatedBy(() => deserializer.Deserialize(v.Data, isNull: false, context));

        Assert.Equal(bare, ours);
    }

    [Theory]
    [InlineData("7b")]                      // framing fault
    [InlineData("00 0000002a 01 0a")]       // negative count
    [InlineData("00 0000002a 02 02 0a00")]  // wrong writer type ([1] read as Reading at [0])
    public void TryDeserialize_RejectsWithoutAllocating(string hex)
    {
        byte[] data = Bytes(hex);
        var deserializer = new FramedProtobufDeserializer<Reading>(new FramedDeserializerOptions { VerifyWriterType = true });
        var context = new SerializationContext(MessageComponentType.Value, "t", [new Header("trace-id", [1])]);
        bool accepted = false;

        Assert.Equal(0, AllocatedBy(() => accepted |= deserializer.TryDeserialize(data, false, context, out _, out _)));
        Assert.False(accepted);
    }

    [Fact]
    public void MultiType_SkippingAndRejectingAllocateNothing()
    {
        var deserializer = new MultiTypeProtobufDeserializer(
            [Reading.Descriptor], new MultiTypeDeserializerOptions { UnregisteredMessageTypes = UnregisteredMessageTypeHandling.Skip });
        byte[] device = [.. Bytes("00 0000002a 02 02"), .. new Device { Id = "d" }.ToByteArray()];
        byte[] unknownPath = Bytes("00 0000002a 02 0e 0a00");
        var context = new SerializationContext(MessageComponentType.Value, "t", []);

        Assert.Equal(0, AllocatedBy(() => deserializer.Deserialize(device, false, context)));
        Assert.Equal(0, AllocatedBy(() => deserializer.TryDeserialize(unknownPath, false, context, out _, out _)));
    }

    [Fact]
    public void MultiType_AllocatesExactlyWhatABareParseAllocates()
    {
        ConfluentVector v = ConfluentVector.ByName["confluent-dotnet/prefix/value/Device.Firmware"];
        MultiTypeProtobufDeserializer deserializer = MultiTypeProtobufDeserializer.ForFiles(TelemetryReflection.Descriptor);
        SerializationContext context = v.Context();

        long bare = AllocatedBy(() => Device.Types.Firmware.Parser.ParseFrom(v.Payload.AsSpan()));
        long ours = AllocatedBy(() => deserializer.Deserialize(v.Data, false, context));

        Assert.Equal(bare, ours);
    }

    [Fact]
    public void Tombstone_AllocatesNothing()
    {
        var deserializer = new FramedProtobufDeserializer<Reading>();
        Assert.Equal(0, AllocatedBy(() => deserializer.Deserialize(default, isNull: true, SerializationContext.Empty)));
        Assert.Equal(0, AllocatedBy(() => deserializer.DeserializeAsync(default, isNull: true, SerializationContext.Empty)));
    }

    [Fact]
    public void AsyncDeserializer_AllocatesOnlyTheMessageAndItsTask()
    {
        byte[] payload = Sample.ToByteArray();
        byte[] frame = [.. Bytes("00 0000002a 00"), .. payload];
        var deserializer = new FramedProtobufDeserializer<Reading>();
        var context = new SerializationContext(MessageComponentType.Value, "t", []);

        long bare = AllocatedBy(() => Task.FromResult(Reading.Parser.ParseFrom(payload.AsSpan())));
        long ours = AllocatedBy(() => deserializer.DeserializeAsync(frame, isNull: false, context));

        Assert.Equal(bare, ours);
    }
}
