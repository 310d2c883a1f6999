using System;
using System.Linq;
using System.Threading.Tasks;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Streamiz;
using KafkaProtobuf.Testing.SchemaRegistry;
using Shop.V1;
using Streamiz.Kafka.Net;
using Streamiz.Kafka.Net.Mock;
using Streamiz.Kafka.Net.SerDes;
using Streamiz.Kafka.Net.Stream;
using Xunit;

namespace KafkaProtobuf.Tests.Streamiz;

/// <summary>
/// The serdes set up from a stream's configuration alone, through Streamiz's own test driver (no broker): the registry's
/// <c>schema.registry.*</c> settings and Streamiz's <c>protobuf.serializer.*</c> ones, and a setting it cannot honour
/// named when the stream starts.
/// </summary>
public sealed class StreamizSettingsTests : IDisposable
{
    private readonly InProcessSchemaRegistry _registry = InProcessSchemaRegistry.Start();

    public void Dispose() => _registry.Dispose();

    private static StreamConfig<StringSerDes, RegistryProtobufSerDes<OrderPlaced>> Config() => new()
    {
        ApplicationId = "settings-" + Guid.NewGuid().ToString("N")[..8],
        Logger = Microsoft.Extensions.Logging.Abstractions.NullLoggerFactory.Instance,
    };

    private static Topology PassThrough()
    {
        var builder = new StreamBuilder();
        builder.Stream<string, OrderPlaced>("in").To("out");
        return builder.Build();
    }

    [Fact]
    public async Task SerializerSettings_ByStreamizsNames_AndBasicAuthFromSchemaRegistrySettings()
    {
        _registry.RequireBasicAuth("KEY", "SECRET");
        var config = Config();
        config.AddConfig("schema.registry.url", _registry.Url);
        config.AddConfig("schema.registry.basic.auth.user.info", "KEY:SECRET");
        config.SubjectNameStrategy = SubjectNameStrategy.Record;
        config.UseDeprecatedFormat = true;

        using (var driver = new TopologyTestDriver(PassThrough(), config))
        {
            driver.CreateInputTopic<string, OrderPlaced>("in").PipeInput("ada", new OrderPlaced { OrderId = "o-1" });
            OrderPlaced read = driver.CreateOutputTopic<string, OrderPlaced>("out").ReadKeyValue().Message.Value;
            Assert.Equal("o-1", read.OrderId);
        }

        using var client = new RegistryClient(new RegistryClientOptions { Urls = { _registry.Url }, BasicAuthUserInfo = "KEY:SECRET" });
        Assert.NotNull(await client.GetLatestVersionAsync("shop.v1.OrderPlaced")); // the record name, not in-value / out-value
        Assert.Equal(0, _registry.RequestCount("/subjects/in-value/versions"));
        Assert.All(_registry.AuthorizationHeaders.Take(1), h => Assert.StartsWith("Basic ", h, StringComparison.Ordinal));
    }

    [Theory]
    [InlineData(true, new byte[] { 0x01, 0x01 })] // the deprecated message-index encoding: count and index as plain varints
    [InlineData(false, new byte[] { 0x02, 0x02 })] // Confluent's current one: zigzag varints
    public void UseDeprecatedFormat_ChangesTheMessageIndexBytesWritten(bool deprecated, byte[] indexes)
    {
        // OrderPlaced is its generated file's second message, path [1]; read back through the same serdes both would
        // look alike, so the bytes written are what is checked.
        var config = Config();
        config.AddConfig("schema.registry.url", _registry.Url);
        config.UseDeprecatedFormat = deprecated;

        using var driver = new TopologyTestDriver(PassThrough(), config);
        driver.CreateInputTopic<string, OrderPlaced>("in").PipeInput("ada", new OrderPlaced { OrderId = "o-1" });
        byte[] written = driver.CreateOutputTopic<string, byte[], StringSerDes, ByteArraySerDes>("out").ReadKeyValue().Message.Value;

        Assert.Equal(0, written[0]);
        Assert.Equal(Convert.ToHexString(indexes), Convert.ToHexString(written.AsSpan(5, indexes.Length)));
        Assert.Equal(new OrderPlaced { OrderId = "o-1" }, OrderPlaced.Parser.ParseFrom(written.AsSpan(5 + indexes.Length)));
    }

    [Fact]
    public void ASettingTheClientCannotHonour_StopsTheStreamAtStartUp_Named()
    {
        var config = Config();
        config.AddConfig("schema.registry.url", _registry.Url);
        config.AddConfig("schema.registry.bearer.auth.credentials.source", "CUSTOM");

        var e = Assert.ThrowsAny<Exception>(() =>
        {
            using var driver = new TopologyTestDriver(PassThrough(), config);
            driver.CreateInputTopic<string, OrderPlaced>("in").PipeInput("ada", new OrderPlaced { OrderId = "o-1" });
        });

        Assert.Contains("'schema.registry.bearer.auth.credentials.source' is CUSTOM", e.ToString(), StringComparison.Ordinal);
    }
}
