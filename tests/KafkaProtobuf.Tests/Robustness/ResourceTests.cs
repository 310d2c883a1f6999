using System;
using System.Linq;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.Fuzz;
using KafkaProtobuf.Tests.Support;
using Vectors.Telemetry.V1;
using Xunit;
using static KafkaProtobuf.Tests.Support.Hex;

namespace KafkaProtobuf.Tests.Robustness;

/// <summary>Hostile frames cost in proportion to their bytes, never to what they claim.</summary>
public class ResourceTests
{
    private static readonly SerializationContext Value = new(MessageComponentType.Value, "t", []);

    private static long Allocated(Action action) => AllocationCounter.Least(action, warmUps: 1, callsPerAttempt: 1);

    [Theory]
    [InlineData("00 0000002a fe ff ff ff 0f 00")]       // count int.MaxValue
    [InlineData("00 0000002a fe ff ff ff 0f")]          // ... with nothing after it
    [InlineData("00 0000002a 80 80 80 80 08 00 00")]    // legacy-looking count past int.MaxValue
    public void HugeIndexCounts_AreRejectedWithoutAllocating(string hex)
    {
        byte[] frame = Bytes(hex);
        var deserializer = new FramedProtobufDeserializer<Reading>();
        Assert.Equal(0, Allocated(() => deserializer.TryDeserialize(frame, false, Value, out _, out _)));
    }

    [Fact]
    public void PayloadClaimingATwoGigabyteField_FailsWithoutAllocatingIt()
    {
        // Field 1 (a string) claims 2^31 - 1 bytes; 3 follow.
        byte[] frame = [.. Bytes("00 0000002a 00"), .. Bytes("0a ff ff ff ff 07 61 62 63")];
        var deserializer = new FramedProtobufDeserializer<Reading>();

        Assert.False(deserializer.TryDeserialize(frame, false, Value, out _, out FrameError error));
        Assert.Equal(FrameErrorCode.InvalidPayload, error.Code);
        Assert.True(Allocated(() => deserializer.TryDeserialize(frame, false, Value, out _, out _)) < 16 * 1024); // the parser's exception, not 2 GB
    }

    [Fact]
    public void NestedUnknownGroups_CostInProportionToTheInput_AndNothingWhenDiscarded()
    {
        // Found by the fuzzer: Google.Protobuf keeps unknown fields, ~400 B per nesting level (2 input bytes).
        byte[] payload = [.. Enumerable.Repeat((byte)0x63, 99), .. Enumerable.Repeat((byte)0x64, 99)];
        byte[] frame = [.. Bytes("00 0000002a 04 02 00"), .. payload];
        var keeping = new FramedProtobufDeserializer<Device.Types.Location>();
        var discarding = new FramedProtobufDeserializer<Device.Types.Location>(Device.Types.Location.Parser.WithDiscardUnknownFields(true), null);

        long kept = Allocated(() => keeping.Deserialize(frame, false, Value));
        long discarded = Allocated(() => discarding.Deserialize(frame, false, Value));

        Assert.InRange(kept, 10_000, 4096L * frame.Length);
        Assert.True(discarded < 1024, $"{discarded} B with unknown fields discarded");
    }

    [Fact]
    public void DeeplyNestedMessages_HitTheRecursionLimitAsInvalidPayload()
    {
        // Alert.reading -> Reading has no recursion, so nest the only recursive shape there is: unknown groups past 100.
        byte[] frame = [.. Bytes("00 0000002a 00"), .. Enumerable.Repeat((byte)0x63, 150), .. Enumerable.Repeat((byte)0x64, 150)];
        Assert.False(new FramedProtobufDeserializer<Reading>().TryDeserialize(frame, false, Value, out _, out FrameError error));
        Assert.Equal(FrameErrorCode.InvalidPayload, error.Code);
    }

    [Fact]
    public void ThousandsOfRandomSchemaIds_CostAFewHundredBytesEach()
    {
        // Found by the fuzzer: the resolver-answer cache used to resize at thousands of ids (320 KB in one call).
        // Each id is new to a deserializer only once, so AllocationCounter cannot repeat the call: the same ids go
        // through three fresh deserializers instead and each call counts its least. A resize repeats, a glitch does not.
        const int Ids = 6000;
        long[] least = Enumerable.Repeat(long.MaxValue, Ids + 1).ToArray();
        for (int run = 0; run < 3; run++)
        {
            var deserializer = new MultiTypeProtobufDeserializer(
                [Reading.Descriptor], new MultiTypeDeserializerOptions { WriterSchemas = { Source = new FunctionSchemaSource(_ => TelemetryReflection.Descriptor) } });
            for (int id = 1; id <= Ids; id++)
            {
                byte[] frame = [0x00, (byte)(id >> 24), (byte)(id >> 16), (byte)(id >> 8), (byte)id, 0x00, 0x0a, 0x01, 0x41];
                long before = GC.GetAllocatedBytesForCurrentThread();
                deserializer.TryDeserialize(frame, false, Value, out IMessage? message, out _);
                least[id] = Math.Min(least[id], GC.GetAllocatedBytesForCurrentThread() - before);
                Assert.IsType<Reading>(message);
            }
        }

        long worst = least.Skip(11).Max(); // the first calls include one-time set-up
        Assert.True(worst <= 1024, $"worst call allocated {worst} B (id {Array.IndexOf(least, worst)})");
    }
}
