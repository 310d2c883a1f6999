using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf.Framing;
using KafkaProtobuf.Fuzz;
using KafkaProtobuf.Tests.Support;
using Tests.Inventory.V1;
using Vectors.Telemetry.V1;
using Xunit;
using static KafkaProtobuf.Tests.Support.Hex;

namespace KafkaProtobuf.Tests.Deserialization;

public class MultiTypeDeserializerTests
{
    private static readonly MultiTypeProtobufDeserializer Telemetry = MultiTypeProtobufDeserializer.ForFiles(TelemetryReflection.Descriptor);

    private static SerializationContext Value() => new(MessageComponentType.Value, "mixed", []);

    private static byte[] Framed(SchemaIdentifier id, int[] path, IMessage message) =>
        [.. FrameWriter.ToSchemaIdAndIndexes(id, path, MessageIndexEncoding.ZigZag), .. message.ToByteArray()];

    public static TheoryData<string> Vectors => ConfluentVector.Names();

    [Theory]
    [MemberData(nameof(Vectors))]
    public void EveryConfluentVector_ComesBackAsItsOwnTypeEqualToABareParse(string name)
    {
        ConfluentVector v = ConfluentVector.ByName[name];
        IMessage? message = Telemetry.Deserialize(v.Data, false, v.Context());

        Assert.NotNull(message);
        Assert.Equal(v.Type, message.Descriptor.FullName);
        Assert.Equal(TelemetryTypes.For(v.Type).ParsePayload(v.Payload), message);
    }

    [Fact]
    public void PatternMatching_IsTheNaturalWayToUseIt()
    {
        string Describe(IMessage? message) => message switch
        {
            Reading reading => "reading " + reading.SensorId,
            Device.Types.Location location => "location " + location.Lat,
            Device device => "device " + device.Id,
            null => "tombstone",
            _ => "other",
        };

        Assert.Equal("reading r", Describe(Telemetry.Deserialize(Framed(SchemaIdentifier.FromId(1), [0], new Reading { SensorId = "r" }), false, Value())));
        Assert.Equal("device d", Describe(Telemetry.Deserialize(Framed(SchemaIdentifier.FromId(1), [1], new Device { Id = "d" }), false, Value())));
        Assert.Equal("location 2", Describe(Telemetry.Deserialize(Framed(SchemaIdentifier.FromId(1), [1, 1], new Device.Types.Location { Lat = 2 }), false, Value())));
        Assert.Equal("tombstone", Describe(Telemetry.Deserialize(default, true, Value())));
    }

    [Fact]
    public void CollidingPathsInTwoFiles_AreResolvedBySchemaId()
    {
        var options = new MultiTypeDeserializerOptions();
        options.WriterSchemas.Files[SchemaIdentifier.FromId(1)] = TelemetryReflection.Descriptor;
        options.WriterSchemas.Files[SchemaIdentifier.FromId(100)] = InventoryReflection.Descriptor;
        var deserializer = new MultiTypeProtobufDeserializer([TelemetryReflection.Descriptor, InventoryReflection.Descriptor], options);

        IMessage? device = deserializer.Deserialize(Framed(SchemaIdentifier.FromId(1), [1], new Device { Id = "d" }), false, Value());
        IMessage? warehouse = deserializer.Deserialize(Framed(SchemaIdentifier.FromId(100), [1], new Warehouse { Code = "w" }), false, Value());

        Assert.Equal(new Device { Id = "d" }, device);
        Assert.Equal(new Warehouse { Code = "w" }, warehouse);
    }

    [Fact]
    public void SchemaIdWithNoFile_IsUnknownSchemaId()
    {
        var options = new MultiTypeDeserializerOptions();
        options.WriterSchemas.Files[SchemaIdentifier.FromId(1)] = TelemetryReflection.Descriptor;
        options.WriterSchemas.Files[SchemaIdentifier.FromId(100)] = InventoryReflection.Descriptor;
        var deserializer = new MultiTypeProtobufDeserializer([TelemetryReflection.Descriptor, InventoryReflection.Descriptor], options);
        var guid = Guid.Parse("535dfcf3-ca23-439a-a2aa-7cf32e6ddf10");

        InvalidFrameException e = Assert.Throws<InvalidFrameException>(() =>
            deserializer.Deserialize(Framed(SchemaIdentifier.FromGuid(guid), [1], new Device()), false, Value()));

        Assert.Equal(new FrameError(FrameErrorCode.UnknownSchemaId, 17, FrameErrorLocation.RecordData, SchemaIdentifier.FromGuid(guid)), e.Error);
        Assert.Equal([1], e.MessageIndexPath);
        Assert.Contains(guid.ToString(), e.Message, StringComparison.Ordinal);
        Assert.Contains("[1]", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void SingleFileWithMappings_RejectsAnUnmappedId()
    {
        // Once the user maps ids, an unmapped one is not silently read in the only file.
        var options = new MultiTypeDeserializerOptions();
        options.WriterSchemas.Files[SchemaIdentifier.FromId(1)] = TelemetryReflection.Descriptor;
        var deserializer = new MultiTypeProtobufDeserializer([TelemetryReflection.Descriptor], options);

        Assert.NotNull(deserializer.Deserialize(Framed(SchemaIdentifier.FromId(1), [0], new Reading()), false, Value()));
        InvalidFrameException e = Assert.Throws<InvalidFrameException>(() =>
            deserializer.Deserialize(Framed(SchemaIdentifier.FromId(2), [0], new Reading()), false, Value()));
        Assert.Equal(FrameErrorCode.UnknownSchemaId, e.ErrorCode);
    }

    [Fact]
    public void Resolver_IsAskedOncePerSchemaId_AndNullMeansUnknown()
    {
        var asked = new List<SchemaIdentifier>();
        var options = new MultiTypeDeserializerOptions
        {
            WriterSchemas = { Source = new FunctionSchemaSource(id =>
            {
                lock (asked)
                {
                    asked.Add(id);
                }

                return id.Id switch { 7 => TelemetryReflection.Descriptor, 8 => InventoryReflection.Descriptor, _ => null };
            }) },
        };
        var deserializer = new MultiTypeProtobufDeserializer([TelemetryReflection.Descriptor, InventoryReflection.Descriptor], options);

        for (int i = 0; i < 5; i++)
        {
            Assert.IsType<Device>(deserializer.Deserialize(Framed(SchemaIdentifier.FromId(7), [1], new Device()), false, Value()));
            Assert.IsType<Warehouse>(deserializer.Deserialize(Framed(SchemaIdentifier.FromId(8), [1], new Warehouse()), false, Value()));
        }

        Assert.Equal([SchemaIdentifier.FromId(7), SchemaIdentifier.FromId(8)], asked);
        InvalidFrameException e = Assert.Throws<InvalidFrameException>(() =>
            deserializer.Deserialize(Framed(SchemaIdentifier.FromId(9), [1], new Device()), false, Value()));
        Assert.Equal(FrameErrorCode.UnknownSchemaId, e.ErrorCode);
    }

    [Theory]
    [InlineData(new[] { 3 })]        // three top-level messages: 0, 1, 2
    [InlineData(new[] { 0, 0 })]     // Reading has no nested types
    [InlineData(new[] { 1, 3 })]     // Device has three: LabelsEntry, Location, Firmware
    [InlineData(new[] { 1, 2, 1 })]  // Firmware has one: Signature
    [InlineData(new[] { 1, 0 })]     // the map's hidden entry type is no record type
    public void PathThatNamesNoType_IsUnknownMessageType(int[] path)
    {
        byte[] data = Framed(SchemaIdentifier.FromId(4), path, new Reading());
        InvalidFrameException e = Assert.Throws<InvalidFrameException>(() => Telemetry.Deserialize(data, false, Value()));

        Assert.Equal(new FrameError(FrameErrorCode.UnknownMessageType, 5, FrameErrorLocation.RecordData, SchemaIdentifier.FromId(4)), e.Error);
        Assert.Equal(path, e.MessageIndexPath);
        Assert.Contains("telemetry.proto", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void UnknownPathInAHeader_PointsIntoTheHeader()
    {
        var headers = new Headers { { SchemaIdHeaderNames.Value, FrameWriter.ToSchemaIdAndIndexes(SchemaIdentifier.FromId(4), [9], MessageIndexEncoding.ZigZag) } };
        Assert.False(Telemetry.TryDeserialize(new Reading().ToByteArray(), false, new SerializationContext(MessageComponentType.Value, "t", headers), out _, out FrameError error));
        Assert.Equal(new FrameError(FrameErrorCode.UnknownMessageType, 5, FrameErrorLocation.SchemaIdHeader, SchemaIdentifier.FromId(4)), error);
    }

    [Fact]
    public void UnregisteredType_IsRejectedByDefault()
    {
        MultiTypeProtobufDeserializer readingsOnly = MultiTypeProtobufDeserializer.ForMessageTypes(Reading.Descriptor);
        Assert.IsType<Reading>(readingsOnly.Deserialize(Framed(SchemaIdentifier.FromId(1), [0], new Reading()), false, Value()));

        InvalidFrameException e = Assert.Throws<InvalidFrameException>(() =>
            readingsOnly.Deserialize(Framed(SchemaIdentifier.FromId(1), [1, 2], new Device.Types.Firmware()), false, Value()));
        Assert.Equal(FrameErrorCode.UnregisteredMessageType, e.ErrorCode);
        Assert.Contains("vectors.telemetry.v1.Device.Firmware", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void UnregisteredType_CanBeSkippedWithoutParsing()
    {
        var deserializer = new MultiTypeProtobufDeserializer(
            [Reading.Descriptor], new MultiTypeDeserializerOptions { UnregisteredMessageTypes = UnregisteredMessageTypeHandling.Skip });

        // The payload is garbage for any type: a skipped record is never parsed.
        byte[] garbage = [.. Bytes("00 00000001 02 02"), .. Bytes("0a ff ff ff")];
        SkippedMessage first = Assert.IsType<SkippedMessage>(deserializer.Deserialize(garbage, false, Value()));
        SkippedMessage second = Assert.IsType<SkippedMessage>(deserializer.Deserialize(garbage, false, Value()));

        Assert.Same(Device.Descriptor, first.WriterType);
        Assert.Same(first, second); // one marker per type: skipping allocates nothing
        Assert.Equal("skipped vectors.telemetry.v1.Device", first.ToString());
        Assert.Equal(0, ((IMessage)first).CalculateSize());

        // A path that names nothing is still an error, skip or not.
        Assert.Throws<InvalidFrameException>(() => deserializer.Deserialize(Framed(SchemaIdentifier.FromId(1), [5], new Reading()), false, Value()));
    }

    [Fact]
    public void BadPayload_IsInvalidPayloadWithThePath()
    {
        byte[] data = [.. Bytes("00 00000001 04 02 02"), .. Bytes("09 01")];
        InvalidFrameException e = Assert.Throws<InvalidFrameException>(() => Telemetry.Deserialize(data, false, Value()));
        Assert.Equal(FrameErrorCode.InvalidPayload, e.ErrorCode);
        Assert.Equal(8, e.Offset);
        Assert.Equal([1, 1], e.MessageIndexPath);
    }

    [Fact]
    public async Task AsyncPath_CompletesOrFaults()
    {
        Assert.IsType<Reading>(await Telemetry.DeserializeAsync(Framed(SchemaIdentifier.FromId(1), [0], new Reading()), false, Value()));
        Assert.Null(await Telemetry.DeserializeAsync(default, true, Value()));
        Task<IMessage?> faulted = Telemetry.DeserializeAsync(Bytes("00 00000001 02 10"), false, Value());
        Assert.True(faulted.IsFaulted);
        Assert.Equal(FrameErrorCode.UnknownMessageType, Assert.IsType<InvalidFrameException>(faulted.Exception!.InnerException).ErrorCode);
    }

    [Fact]
    public void InvalidConstruction_IsRejected()
    {
        Assert.Throws<ArgumentException>(() => MultiTypeProtobufDeserializer.ForFiles());
        Assert.Throws<ArgumentException>(() => MultiTypeProtobufDeserializer.ForMessageTypes());
        Assert.Throws<ArgumentException>(() => MultiTypeProtobufDeserializer.ForMessageTypes(Device.Descriptor.NestedTypes[0])); // LabelsEntry
        Assert.Throws<ArgumentOutOfRangeException>(() => new MultiTypeProtobufDeserializer(
            [Reading.Descriptor], new MultiTypeDeserializerOptions { UnregisteredMessageTypes = (UnregisteredMessageTypeHandling)9 }));
    }

    [Fact]
    public void MessageTypes_ListsEveryRecordTypeOfTheFile() =>
        Assert.Equal(
            ["vectors.telemetry.v1.Alert", "vectors.telemetry.v1.Device", "vectors.telemetry.v1.Device.Firmware",
             "vectors.telemetry.v1.Device.Firmware.Signature", "vectors.telemetry.v1.Device.Location", "vectors.telemetry.v1.Reading"],
            Telemetry.MessageTypes.Select(t => t.FullName).Order());

    [Fact]
    public async Task OneInstanceSharedByEightThreads_GivesTheSingleThreadedResults()
    {
        var options = new MultiTypeDeserializerOptions { UnregisteredMessageTypes = UnregisteredMessageTypeHandling.Skip, WriterSchemas = { Source = new FunctionSchemaSource(_ => TelemetryReflection.Descriptor) } };
        var deserializer = new MultiTypeProtobufDeserializer([Reading.Descriptor, Device.Descriptor, Alert.Descriptor], options);
        var inputs = ConfluentVector.ByName.Values.Select(v => (v.Data, Context: v.Context())).ToList();
        inputs.Add((Bytes("00 00000001 02 10"), Value()));

        string Outcome(byte[] data, SerializationContext context) =>
            deserializer.TryDeserialize(data, false, context, out IMessage? m, out FrameError e) ? m + "|" + m?.GetType().Name : e.ToString();

        string[] expected = inputs.Select(i => Outcome(i.Data, i.Context)).ToArray();
        Assert.Contains(expected, o => o.EndsWith("|SkippedMessage", StringComparison.Ordinal));
        using var start = new Barrier(8);
        string[][] results = await Task.WhenAll(Enumerable.Range(0, 8).Select(t => Task.Factory.StartNew(
            () =>
            {
                start.SignalAndWait();
                var mismatches = new List<string>();
                for (int round = 0; round < 100; round++)
                {
                    for (int k = 0; k < inputs.Count; k++)
                    {
                        int i = (k + t + round) % inputs.Count;
                        string outcome = Outcome(inputs[i].Data, inputs[i].Context);
                        if (outcome != expected[i])
                        {
                            mismatches.Add(outcome);
                        }
                    }
                }

                return mismatches.ToArray();
            },
            TaskCreationOptions.LongRunning)));
        Assert.Empty(results.SelectMany(r => r));
    }
}
