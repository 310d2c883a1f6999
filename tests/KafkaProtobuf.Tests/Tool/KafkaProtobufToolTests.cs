using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tests.Support;
using Shop.V1;
using Vectors.Telemetry.V1;
using Xunit;

namespace KafkaProtobuf.Tests.Tool;

/// <summary>
/// kafka-protobuf run as a process against the embedded Kafka cluster and the in-process Schema Registry: a topic of
/// registered order records with poison among them, a dead-letter topic written by <c>DeadLetter</c>, Confluent's
/// vectors through <c>frame</c>, the help texts and the exit codes.
/// </summary>
public sealed class KafkaProtobufToolTests : IDisposable
{
    private static readonly TimeSpan Deadline = TimeSpan.FromSeconds(60);
    private static readonly JsonFormatter Formatter = new(JsonFormatter.Settings.Default);

    private EmbeddedKafkaCluster? _cluster; // started by the tests that consume: the framing, help and exit-code cases need none
    private readonly InProcessSchemaRegistry _registry = InProcessSchemaRegistry.Start();
    private readonly List<string> _files = [];

    private EmbeddedKafkaCluster Cluster => _cluster ??= EmbeddedKafkaCluster.Start(1);

    public void Dispose()
    {
        _registry.Dispose();
        _cluster?.Dispose();
        foreach (string file in _files)
        {
            File.Delete(file);
        }
    }

    private List<IMessage> ProduceOrders(string topic) => OrderTopic.Produce(Cluster, _registry, topic);

    // Every line a script reads starts with the output's format version, before any other field.
    private static List<JsonElement> Lines(string output) =>
        [.. output.Split('\n', StringSplitOptions.RemoveEmptyEntries).Select(line => JsonDocument.Parse(line).RootElement.Clone()).Select(FormatOne)];

    private static JsonElement FormatOne(JsonElement line)
    {
        JsonProperty first = line.EnumerateObject().First();
        Assert.Equal(("format", 1), (first.Name, first.Value.GetInt32()));
        return line;
    }

    private static string Compact(string json) => JsonSerializer.Serialize(JsonDocument.Parse(json).RootElement);

    [Fact]
    public async Task Consume_WithTheRegistry_DecodesEveryRecordFromTheWritersSchema_AndShowsThePoisonRecordWithItsError()
    {
        List<IMessage> orders = ProduceOrders("orders");

        ToolProcess.Result run = await ToolProcess.RunAsync(
            "consume", "--bootstrap-servers", Cluster.BootstrapServers, "--topic", "orders", "--from-beginning", "--until-end",
            "--schema-registry", _registry.Url);

        Assert.True(run.ExitCode == 0, run.Error);
        List<JsonElement> records = Lines(run.Output);
        Assert.Equal(7, records.Count);
        Assert.Equal(Enumerable.Range(0, 7), records.Select(r => r.GetProperty("offset").GetInt32()));
        List<JsonElement> good = [.. records.Where(r => r.GetProperty("offset").GetInt32() != 3)];
        for (int i = 0; i < orders.Count; i++)
        {
            JsonElement value = good[i].GetProperty("value");
            Assert.Equal(orders[i].Descriptor.FullName, value.GetProperty("type").GetString());
            Assert.Equal(Compact(Formatter.Format(orders[i])), Compact(value.GetProperty("message").GetRawText()));
            Assert.Equal("prefix", value.GetProperty("schemaIdIn").GetString());
            JsonElement key = good[i].GetProperty("key");
            Assert.Equal("shop.v1.OrderKey", key.GetProperty("type").GetString());
            Assert.Equal(Compact(Formatter.Format(new OrderKey { OrderId = "o-" + i })), Compact(key.GetProperty("message").GetRawText()));
        }

        JsonElement poison = records[3].GetProperty("value");
        Assert.Equal("UnknownMagicByte", poison.GetProperty("error").GetProperty("code").GetString());
        Assert.Equal(0, poison.GetProperty("error").GetProperty("offset").GetInt32());
        Assert.Equal("{\"orderId\":\"o-x\"}", Encoding.UTF8.GetString(poison.GetProperty("bytes").GetBytesFromBase64()));

        // The same run with --fail-on-error: the poison record makes it exit 1, after showing everything.
        ToolProcess.Result failing = await ToolProcess.RunAsync(
            "consume", "-b", Cluster.BootstrapServers, "-t", "orders", "--from-beginning", "--max", "7", "--schema-registry", _registry.Url,
            "--fail-on-error", "--format", "pretty");
        Assert.Equal(1, failing.ExitCode);
        Assert.Contains("\"orderId\": \"o-5\"", failing.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Consume_ADeadLetterTopic_ShowsEachPoisonRecordWithWhereItCameFromAndWhy()
    {
        ProduceOrders("orders");
        Cluster.CreateTopic("orders.dlq", 1);
        using (IProducer<byte[], byte[]> deadLetters = new ProducerBuilder<byte[], byte[]>(Cluster.CreateProducerConfig()).Build())
        using (IConsumer<Ignore, IMessage> consumer = new ConsumerBuilder<Ignore, IMessage>(Cluster.CreateConsumerConfig())
            .SetValueDeserializer(new MultiTypeProtobufDeserializer([ShopReflection.Descriptor], null)).Build())
        {
            consumer.Assign(new TopicPartitionOffset("orders", 0, Offset.Beginning));
            int handled = 0;
            DateTime deadline = DateTime.UtcNow + Deadline;
            while (handled < 7 && DateTime.UtcNow < deadline)
            {
                try
                {
                    handled += consumer.Consume(TimeSpan.FromMilliseconds(100)) is null ? 0 : 1;
                }
                catch (ConsumeException e) when (e.IsDeserializationFailure())
                {
                    consumer.DeadLetter(e, deadLetters, "orders.dlq", TimeSpan.FromSeconds(10));
                    handled++;
                }
            }

            Assert.Equal(7, handled);
        }

        ToolProcess.Result run = await ToolProcess.RunAsync(
            "consume", "-b", Cluster.BootstrapServers, "-t", "orders.dlq", "--from-beginning", "--until-end", "--schema-registry", _registry.Url);

        Assert.True(run.ExitCode == 0, run.Error);
        JsonElement letter = Assert.Single(Lines(run.Output));
        Assert.Equal("{\"orderId\":\"o-x\"}", Compact(letter.GetProperty("key").GetProperty("message").GetRawText())); // the key, still framed
        JsonElement deadLetter = letter.GetProperty("deadLetter");
        Assert.Equal("UnknownMagicByte", deadLetter.GetProperty("errorCode").GetString());
        Assert.Equal("orders", deadLetter.GetProperty("sourceTopic").GetString());
        Assert.Equal(0, deadLetter.GetProperty("sourcePartition").GetInt32());
        Assert.Equal(3, deadLetter.GetProperty("sourceOffset").GetInt64());
        Assert.Equal("value", deadLetter.GetProperty("component").GetString());
    }

    [Theory]
    [InlineData("string", "\"alpha-\u00e9\"")]
    [InlineData("bytes", "\"YWxwaGEtw6k=\"")]
    public async Task Consume_KeysAsTextOrBytes_FromARegistryThatWantsABearerToken(string keyFormat, string keyJson)
    {
        _registry.RequireBearerToken("tok-1");
        Cluster.CreateTopic("keyed", 1);
        using (var client = new RegistryClient(new RegistryClientOptions { Urls = { _registry.Url }, BearerToken = _ => Task.FromResult("tok-1") }))
        using (IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(Cluster.CreateProducerConfig()).Build())
        {
            byte[] value = new RegistryProtobufSerializer<OrderShipped>(client, null).Serialize(new OrderShipped { OrderId = "o-9" }, new SerializationContext(MessageComponentType.Value, "keyed", []))!;
            producer.Produce("keyed", new Message<byte[], byte[]> { Key = Encoding.UTF8.GetBytes("alpha-\u00e9"), Value = value });
            Assert.Equal(0, producer.Flush(Deadline));
        }

        (int exit, string output, string error) = await InProcessTool.RunAsync(
            "consume", "-b", Cluster.BootstrapServers, "-t", "keyed", "--from-beginning", "--until-end",
            "--schema-registry", _registry.Url, "--registry-bearer-token", "tok-1", "--key-format", keyFormat);

        Assert.True(exit == 0, error);
        Assert.Contains("--registry-bearer-token", error, StringComparison.Ordinal); // a secret as an argument draws its warning
        Assert.DoesNotContain("tok-1", error, StringComparison.Ordinal); // and is never echoed
        JsonElement record = Assert.Single(Lines(output));
        Assert.Equal(keyJson, record.GetProperty("key").GetRawText());
        Assert.Equal("o-9", record.GetProperty("value").GetProperty("message").GetProperty("orderId").GetString());
    }

    [Fact]
    public async Task Frame_WithTheRegistry_DecodesARecordTheRegisteringSerializerWrote()
    {
        using var client = new RegistryClient(_registry.Url);
        var shipped = new OrderShipped { OrderId = "o-7", Carrier = "bpost", Address = new OrderShipped.Types.Address { City = "Ghent" } };
        byte[] value = new RegistryProtobufSerializer<OrderShipped>(client, null).Serialize(shipped, new SerializationContext(MessageComponentType.Value, "orders", []))!;

        ToolProcess.Result run = await ToolProcess.RunAsync("frame", Convert.ToBase64String(value), "--schema-registry", _registry.Url);

        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Contains("message index  [3]", run.Output, StringComparison.Ordinal);
        Assert.Contains("type           shop.v1.OrderShipped", run.Output, StringComparison.Ordinal);
        string message = run.Output.Split('\n').Single(l => l.StartsWith("message        ", StringComparison.Ordinal))["message        ".Length..];
        Assert.Equal(Compact(Formatter.Format(shipped)), Compact(message));
    }

    [Fact]
    public async Task Frame_AConfluentVector_WithADescriptorSet_LaysOutTheFramingAndPrintsTheMessage()
    {
        ConfluentVector vector = ConfluentVector.ByName["confluent-dotnet/prefix/value/Reading"];
        string set = await TelemetryDescriptorSet();

        ToolProcess.Result run = await ToolProcess.RunAsync("frame", Convert.ToHexString(vector.Data), "--descriptor-set", set);

        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Contains("schema         id 1", run.Output, StringComparison.Ordinal);
        Assert.Contains("message index  [0]", run.Output, StringComparison.Ordinal);
        Assert.Contains($"payload        {vector.Payload.Length} bytes at {vector.Data.Length - vector.Payload.Length}", run.Output, StringComparison.Ordinal);
        Assert.Contains("type           vectors.telemetry.v1.Reading", run.Output, StringComparison.Ordinal);
        string message = run.Output.Split('\n').Single(l => l.StartsWith("message        ", StringComparison.Ordinal))["message        ".Length..];
        Assert.Equal(Compact(Formatter.Format(Reading.Parser.ParseFrom(vector.Payload))), Compact(message));
    }

    [Fact]
    public async Task Frame_AKafkaJsRecord_WithNoMessageIndexes_IsTheSchemasFirstMessage()
    {
        // Magic byte, schema id 9, then the payload: what @kafkajs/confluent-schema-registry writes.
        var reading = new Reading { SensorId = "s-1", Value = 21.5 };
        byte[] record = [0, 0, 0, 0, 9, .. reading.ToByteArray()];

        ToolProcess.Result without = await ToolProcess.RunAsync("frame", Convert.ToHexString(record));
        ToolProcess.Result with = await ToolProcess.RunAsync("frame", Convert.ToHexString(record), "--no-message-indexes", "--descriptor-set", await TelemetryDescriptorSet());

        Assert.Equal(1, without.ExitCode); // 0x0A read as an index count: the framing is refused, not guessed
        Assert.True(with.ExitCode == 0, with.Error);
        Assert.Contains("payload        " + reading.CalculateSize() + " bytes at 5", with.Output, StringComparison.Ordinal);
        string message = with.Output.Split('\n').Single(l => l.StartsWith("message        ", StringComparison.Ordinal))["message        ".Length..];
        Assert.Equal(Compact(Formatter.Format(reading)), Compact(message));
    }

    private Task<string> TelemetryDescriptorSet() =>
        Task.FromResult(OrderTopic.WriteDescriptorSet(_files, Google.Protobuf.WellKnownTypes.TimestampReflection.Descriptor, TelemetryReflection.Descriptor));

    [Fact]
    public async Task Frame_AMapEntrysPath_NamesNoMessage_AsTheDeserializersSay()
    {
        // [1, 0] is Device's hidden LabelsEntry: the library rejects it (UnknownMessageType), and the tool used to decode it.
        byte[] record = [0, 0, 0, 0, 1, 0x04, 0x02, 0x00, 0x0a, 0x01, 0x6b];
        Assert.Equal(FrameErrorCode.UnknownMessageType, Assert.Throws<InvalidFrameException>(() =>
            MultiTypeProtobufDeserializer.ForFiles(TelemetryReflection.Descriptor).Deserialize(record, false, new SerializationContext(MessageComponentType.Value, "t"))).ErrorCode);

        ToolProcess.Result run = await ToolProcess.RunAsync("frame", Convert.ToHexString(record), "--descriptor-set", await TelemetryDescriptorSet());

        Assert.Equal(1, run.ExitCode);
        Assert.Contains("message index  [1, 0]", run.Output, StringComparison.Ordinal);
        Assert.True(run.Output.Contains("error          message-index path [1, 0] names no message of Protos/telemetry.proto", StringComparison.Ordinal), run.Output);
    }

    [Fact]
    public async Task Frame_BadFraming_NamesTheErrorAndPutsACaretUnderTheOffendingByte_AndExitsOne()
    {
        ToolProcess.Result run = await ToolProcess.RunAsync("frame", "00 00 00 00 02 06 02");

        Assert.Equal(1, run.ExitCode);
        string[] lines = run.Output.Split('\n');
        Assert.Contains("MessageIndexCountExceedsData", lines[1], StringComparison.Ordinal);
        int caret = lines[2].IndexOf('^', StringComparison.Ordinal);
        Assert.Equal("06", lines[0].Substring(caret, 2)); // the count byte at offset 5
    }

    [Theory]
    [InlineData(new string[] { "--help" }, new[] { "frame", "consume", "Exit codes" })]
    [InlineData(new string[] { "frame", "--help" }, new[] { "<bytes>", "--schema-registry", "--descriptor-set", "--schema-id-header", "--legacy-indexes" })]
    [InlineData(new string[] { "consume", "--help" }, new[] { "--bootstrap-servers", "--topic", "--partition", "--offset", "--from-beginning", "--max", "--fail-on-error", "--format", "--registry-basic-auth" })]
    public async Task Help_OnEveryCommand_NamesItsOptions(string[] args, string[] expected)
    {
        ToolProcess.Result run = await ToolProcess.RunAsync(args);

        Assert.Equal(0, run.ExitCode);
        Assert.All(expected, e => Assert.Contains(e, run.Output, StringComparison.Ordinal));
    }

    [Theory]
    [InlineData(2, "Option '--bootstrap-servers' is required", new string[] { "consume", "--topic", "t" })]
    [InlineData(2, "'zz-not-bytes' is neither hex nor base64", new string[] { "frame", "zz-not-bytes" })]
    [InlineData(2, "Argument 'xml' not recognized", new string[] { "frame", "00", "--format", "xml" })]
    [InlineData(2, "--legacy-indexes cannot be used with --no-message-indexes: records", new string[] { "frame", "0000000001", "--legacy-indexes", "--no-message-indexes" })]
    [InlineData(3, "cannot reach 127.0.0.1:1", new string[] { "consume", "-b", "127.0.0.1:1", "-t", "t", "-X", "socket.connection.setup.timeout.ms=1000" })]
    [InlineData(3, "the schema registry failed: ", new string[] { "frame", "0000000001000a0161", "--schema-registry", "http://127.0.0.1:1" })]
    public async Task ExitCodes_SayWhatWentWrong(int exitCode, string says, string[] args)
    {
        ToolProcess.Result run = await ToolProcess.RunAsync(args);

        Assert.True(exitCode == run.ExitCode, $"exit {run.ExitCode}: {run.Error}");
        Assert.Contains(says, run.Error, StringComparison.Ordinal);
    }
}
