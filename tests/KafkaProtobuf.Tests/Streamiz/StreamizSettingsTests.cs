using System;
using System.Linq;
using System.Threading.Tasks;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Streamiz;
using KafkaProtobuf.Testing;
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

    [Theory]
    [InlineData("schema.registry.max.cached.schemas", 0, "'schema.registry.max.cached.schemas' is '0', not a whole number of at least 1")] // typed in Streamiz: an int
    [InlineData("protobuf.serializer.subject.name.strategy", "ByTheMoon", "'protobuf.serializer.subject.name.strategy' is 'ByTheMoon'; Topic, Record or TopicRecord")]
    [InlineData("protobuf.serializer.reference.subject.name.strategy", "Qualified", "references are named by their import path (ReferenceName) only")]
    [InlineData("protobuf.serializer.auto.register.schemas", "yes", "'protobuf.serializer.auto.register.schemas' is 'yes', not true or false")]
    [InlineData("protobuf.serializer.use.latest.version", "1", "'protobuf.serializer.use.latest.version' is '1', not true or false")]
    [InlineData("protobuf.serializer.skip.known.types", "maybe", "'protobuf.serializer.skip.known.types' is 'maybe', not true or false")]
    public void ABadValue_StopsTheStreamAtStartUp_NamingTheSettingAndTheValue(string key, object value, string says)
    {
        var config = Config();
        config.AddConfig("schema.registry.url", _registry.Url);
        config.AddConfig(key, value);

        var e = Assert.ThrowsAny<Exception>(() =>
        {
            using var driver = new TopologyTestDriver(PassThrough(), config);
            driver.CreateInputTopic<string, OrderPlaced>("in").PipeInput("ada", new OrderPlaced { OrderId = "o-1" });
        });

        Assert.Contains(says, e.ToString(), StringComparison.Ordinal);
        Assert.Equal(0, _registry.TotalRequestCount); // refused before anything reached the registry
    }

    [Fact]
    public void SaslInherit_SendsTheStreamsSaslCredentialsToTheRegistry()
    {
        _registry.RequireBasicAuth("stream-user", "stream-secret");
        var config = Config();
        config.AddConfig("schema.registry.url", _registry.Url);
        config.AddConfig("schema.registry.basic.auth.credentials.source", "SASL_INHERIT");
        config.SaslMechanism = Confluent.Kafka.SaslMechanism.Plain;
        config.SaslUsername = "stream-user";
        config.SaslPassword = "stream-secret";

        using (var driver = new TopologyTestDriver(PassThrough(), config))
        {
            driver.CreateInputTopic<string, OrderPlaced>("in").PipeInput("ada", new OrderPlaced { OrderId = "o-1" });
            Assert.Equal("o-1", driver.CreateOutputTopic<string, OrderPlaced>("out").ReadKeyValue().Message.Value.OrderId);
        }

        string expected = "Basic " + Convert.ToBase64String(System.Text.Encoding.UTF8.GetBytes("stream-user:stream-secret"));
        Assert.NotEmpty(_registry.AuthorizationHeaders);
        Assert.All(_registry.AuthorizationHeaders, h => Assert.Equal(expected, h));
    }

    [Fact]
    public void AutoRegisterOff_WritesWithTheRegisteredSchema_AndRegistersNothing()
    {
        var config = Config();
        config.AddConfig("schema.registry.url", _registry.Url);
        config.AddConfig("protobuf.serializer.auto.register.schemas", "false");

        var e = Assert.ThrowsAny<Exception>(() =>
        {
            using var driver = new TopologyTestDriver(PassThrough(), config);
            driver.CreateInputTopic<string, OrderPlaced>("in").PipeInput("ada", new OrderPlaced { OrderId = "o-1" });
        });

        // Nothing registered under in-value or out-value: the serializer only looked the schema up, and was told it is not there.
        Assert.Contains("40401", e.ToString(), StringComparison.Ordinal);
        Assert.Equal(0, _registry.RequestCount("/subjects/in-value/versions") + _registry.RequestCount("/subjects/out-value/versions"));
    }
    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task UseLatestVersion_WritesTheSubjectsLatestSchema_NotTheOneItsTypeWasRegisteredAs(bool useLatest)
    {
        using var client = new RegistryClient(_registry.Url);
        var serializer = new RegistryProtobufSerializer<OrderPlaced>(client, null);
        int own = (await serializer.WarmUpAsync("in", Confluent.Kafka.MessageComponentType.Value)).Id!.Value;
        Assert.Equal(own, (await serializer.WarmUpAsync("out", Confluent.Kafka.MessageComponentType.Value)).Id);
        // The registered schema as text, plus a message type: compatible, so the registry takes it as version 2.
        string extended = ProtoText.Print(Google.Protobuf.Reflection.FileDescriptorProto.Parser.ParseFrom(OrderPlaced.Descriptor.File.SerializedData))
            + "\nmessage AddedLater {\n  string note = 1;\n}\n";
        int latest = (await client.RegisterAsync("out-value", extended, "PROTOBUF", [], normalize: false)).Id!.Value;
        Assert.NotEqual(own, latest);
        var config = Config();
        config.AddConfig("schema.registry.url", _registry.Url);
        config.AddConfig("protobuf.serializer.auto.register.schemas", "false");
        config.AddConfig("protobuf.serializer.use.latest.version", useLatest ? "true" : "false");

        using var driver = new TopologyTestDriver(PassThrough(), config);
        driver.CreateInputTopic<string, OrderPlaced>("in").PipeInput("ada", new OrderPlaced { OrderId = "o-1" });
        byte[] written = driver.CreateOutputTopic<string, byte[], StringSerDes, ByteArraySerDes>("out").ReadKeyValue().Message.Value;

        int id = (written[1] << 24) | (written[2] << 16) | (written[3] << 8) | written[4];
        Assert.Equal(useLatest ? latest : own, id);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task SkipKnownTypes_Off_RegistersTheWellKnownImportsAsReferences(bool skip)
    {
        var config = new StreamConfig<StringSerDes, RegistryProtobufSerDes<Vectors.Telemetry.V1.Reading>>
        {
            ApplicationId = "known-types-" + Guid.NewGuid().ToString("N")[..8],
            Logger = Microsoft.Extensions.Logging.Abstractions.NullLoggerFactory.Instance,
        };
        config.AddConfig("schema.registry.url", _registry.Url);
        config.AddConfig("protobuf.serializer.skip.known.types", skip ? "true" : "false");
        var builder = new StreamBuilder();
        builder.Stream<string, Vectors.Telemetry.V1.Reading>("in").To("out");

        using var driver = new TopologyTestDriver(builder.Build(), config);
        driver.CreateInputTopic<string, Vectors.Telemetry.V1.Reading>("in").PipeInput("s-1", new Vectors.Telemetry.V1.Reading { SensorId = "s-1" });
        Assert.Equal("s-1", driver.CreateOutputTopic<string, Vectors.Telemetry.V1.Reading>("out").ReadKeyValue().Message.Value.SensorId);

        // telemetry.proto imports google/protobuf/timestamp.proto: registered under its own subject only when not skipped.
        using var client = new RegistryClient(_registry.Url);
        RegistrySchema written = await client.GetLatestVersionAsync("in-value");
        if (skip)
        {
            Assert.Empty(written.References);
            await Assert.ThrowsAsync<SchemaRegistryRequestException>(() => client.GetLatestVersionAsync("google/protobuf/timestamp.proto"));
        }
        else
        {
            Assert.Equal("google/protobuf/timestamp.proto", Assert.Single(written.References).Name);
            Assert.Equal(1, (await client.GetLatestVersionAsync("google/protobuf/timestamp.proto")).Version);
        }
    }
}
