using System;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Decoding;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
using Vectors.Telemetry.V1;
using Xunit;

namespace KafkaProtobuf.Tests.Decoding;

/// <summary><see cref="WriterSchemaDecoder"/> with a real registry on loopback, as the tool and the page use it.</summary>
public sealed class WriterSchemaDecoderRegistryTests : IDisposable
{
    private static readonly SerializationContext Value = new(MessageComponentType.Value, "devices");
    private readonly InProcessSchemaRegistry _registry = InProcessSchemaRegistry.Start();
    private readonly RegistryClient _client;

    public WriterSchemaDecoderRegistryTests() => _client = new RegistryClient(_registry.Url);

    public void Dispose()
    {
        _client.Dispose();
        _registry.Dispose();
    }

    [Fact]
    public async Task ARecordOfTheRegistry_IsDecodedFromItsWritersSchema()
    {
        var device = new Device { Id = "dev-1\u202e", Location = new Device.Types.Location { Lat = 52.5 } };
        device.Labels["site"] = "berlin";
        byte[] value = new RegistryProtobufSerializer<Device>(_client).Serialize(device, Value)!;

        DecodedPart part = await new WriterSchemaDecoder(_client).DecodeAsync(value, Value, CancellationToken.None);

        Assert.False(part.IsBad, part.ErrorMessage);
        Assert.True(part.IsFramed);
        Assert.Equal("vectors.telemetry.v1.Device", part.WriterType!.FullName);
        Assert.Equal([1], part.MessageIndexPath);
        Assert.Equal(value.Length - part.PayloadOffset, part.PayloadLength);
        using JsonDocument json = JsonDocument.Parse(part.Json!);
        Assert.Equal("dev-1\u202e", json.RootElement.GetProperty("id").GetString());
        Assert.Equal("berlin", json.RootElement.GetProperty("labels").GetProperty("site").GetString());
        Assert.DoesNotContain('\u202e', part.Json!); // a bidirectional override is escaped: the text can be shown as it is
        Assert.Contains("\\u202e", part.Json, StringComparison.Ordinal);
    }
}
