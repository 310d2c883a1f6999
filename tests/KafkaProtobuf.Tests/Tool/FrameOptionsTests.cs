using System;
using System.Collections.Generic;
using System.IO;
using System.Threading.Tasks;
using Confluent.Kafka;
using Vectors.Telemetry.V1;
using Xunit;

namespace KafkaProtobuf.Tests.Tool;

/// <summary>
/// <c>frame</c>'s options that pick how bytes are read: <c>--proto-file</c> (which file of a descriptor set the
/// message-index path walks) and <c>--key</c> (the bytes are a key: its schema-id header is the key's).
/// </summary>
public sealed class FrameOptionsTests : IDisposable
{
    private readonly List<string> _files = [];

    public void Dispose()
    {
        foreach (string file in _files)
        {
            File.Delete(file);
        }
    }

    /// <summary>telemetry.proto, then inventory.proto last: the default file would be inventory's.</summary>
    private string TelemetryThenInventory() =>
        OrderTopic.WriteDescriptorSet(_files, Google.Protobuf.WellKnownTypes.TimestampReflection.Descriptor, TelemetryReflection.Descriptor, global::Tests.Inventory.V1.InventoryReflection.Descriptor);

    private static string Hex(byte[] bytes) => Convert.ToHexString(bytes);

    private static string Compact(string text) => text.Replace(" ", string.Empty, StringComparison.Ordinal);

    [Fact]
    public async Task ProtoFile_NamesTheFileWhosePathsTheRecordUses_InsteadOfTheSetsLast()
    {
        byte[] record = new FramedProtobufSerializer<Alert>(SchemaIdentifier.FromId(1))
            .Serialize(new Alert { DeviceId = "d-9", Text = "too hot" }, new SerializationContext(MessageComponentType.Value, "t"))!;

        (int exit, string output, string error) = await InProcessTool.RunAsync("frame", Hex(record), "--descriptor-set", TelemetryThenInventory(), "--proto-file", "Protos/telemetry.proto");
        (int _, string byDefault, string _) = await InProcessTool.RunAsync("frame", Hex(record), "--descriptor-set", TelemetryThenInventory());

        Assert.True(exit == 0, error);
        Assert.Contains("type           vectors.telemetry.v1.Alert", output, StringComparison.Ordinal);
        Assert.Contains("\"deviceId\":\"d-9\"", Compact(output), StringComparison.Ordinal);
        Assert.DoesNotContain("vectors.telemetry.v1.Alert", byDefault, StringComparison.Ordinal); // path [2] walked in inventory.proto
    }

    [Fact]
    public async Task ProtoFile_NotInTheSet_IsAUsageError_NamingIt()
    {
        byte[] record = new FramedProtobufSerializer<Alert>(SchemaIdentifier.FromId(1)).Serialize(new Alert(), new SerializationContext(MessageComponentType.Value, "t"))!;

        (int exit, string output, string error) = await InProcessTool.RunAsync("frame", Hex(record), "--descriptor-set", TelemetryThenInventory(), "--proto-file", "Protos/absent.proto");

        Assert.NotEqual(0, exit);
        Assert.Contains("Protos/absent.proto", output + error, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(true, "__key_schema_id")]
    [InlineData(false, "__value_schema_id")]
    public async Task Key_ReadsTheSchemaIdFromTheKeysHeader(bool asKey, string header)
    {
        Guid guid = Guid.Parse("0b7c2f0e-5d43-4c1e-8d7f-1a2b3c4d5e6f");
        var headers = new Headers();
        MessageComponentType component = asKey ? MessageComponentType.Key : MessageComponentType.Value;
        byte[] bytes = new FramedProtobufSerializer<Reading>(SchemaIdentifier.FromGuid(guid), new FramedSerializerOptions { SchemaIdPlacement = SchemaIdPlacement.Header })
            .Serialize(new Reading { SensorId = "s-1" }, new SerializationContext(component, "t", headers))!;
        string[] args = ["frame", Hex(bytes), "--schema-id-header", Hex(headers.GetLastBytes(header)), "--descriptor-set", OrderTopic.WriteDescriptorSet(_files, Google.Protobuf.WellKnownTypes.TimestampReflection.Descriptor, TelemetryReflection.Descriptor)];

        (int exit, string output, string error) = await InProcessTool.RunAsync(asKey ? [.. args, "--key"] : args);

        Assert.True(exit == 0, error);
        Assert.Contains($"magic byte     (in the {header} header)", output, StringComparison.Ordinal);
        Assert.Contains("schema         GUID " + guid.ToString("D"), output, StringComparison.Ordinal);
        Assert.Contains("\"sensorId\":\"s-1\"", Compact(output), StringComparison.Ordinal);
    }
}
