using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.Json;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tests.Support;
using Vectors.Nesting.V1;
using Xunit;

namespace KafkaProtobuf.Tests.Tool;

/// <summary>
/// <c>kafka-protobuf</c> on records Confluent's .NET serializer 2.11.0 wrote with nested paths innermost first
/// (Vectors/): <c>--message-index-order innermost-first</c> reads them, and without it a path that names nothing, or
/// another type than <c>--type</c>, gets a hint when its reverse fits.
/// </summary>
public sealed class ReversedPathToolTests : IDisposable
{
    private readonly List<string> _files = [];

    public void Dispose()
    {
        foreach (string file in _files)
        {
            File.Delete(file);
        }
    }

    private string NestingSet() => OrderTopic.WriteDescriptorSet(_files, NestingReflection.Descriptor);

    private static ConfluentVector Old(string type) => ConfluentVector.Nesting("2.11.0")["confluent-dotnet-2.11.0/prefix/value/" + type];

    private static string Line(string output, string label) =>
        output.Split('\n').SingleOrDefault(l => l.StartsWith(label.PadRight(15), StringComparison.Ordinal))?[15..] ?? "(no " + label + " line in:\n" + output + ")";

    [Fact]
    public async Task Frame_APathThatNamesNothing_ButWhoseReverseDoes_GetsTheHint_AndTheFlagReadsIt()
    {
        ConfluentVector geo = Old("Customer.Address.Geo"); // [1, 0, 0] written as [0, 0, 1]

        ToolProcess.Result without = await ToolProcess.RunAsync("frame", Convert.ToHexString(geo.Data), "--descriptor-set", NestingSet());
        ToolProcess.Result with = await ToolProcess.RunAsync("frame", Convert.ToHexString(geo.Data), "--descriptor-set", NestingSet(), "--message-index-order", "innermost-first");

        Assert.Equal(1, without.ExitCode);
        Assert.Equal("[0, 0, 1]", Line(without.Output, "message index"));
        Assert.StartsWith("message-index path [0, 0, 1] names no message", Line(without.Output, "error"), StringComparison.Ordinal);
        string hint = Line(without.Output, "hint");
        Assert.Contains("[1, 0, 0], which names vectors.nesting.v1.Customer.Address.Geo", hint, StringComparison.Ordinal);
        Assert.Contains("Confluent's .NET serializer 2.10.1 to 2.11.0", hint, StringComparison.Ordinal);
        Assert.Contains("--message-index-order innermost-first", hint, StringComparison.Ordinal);

        Assert.True(with.ExitCode == 0, with.Output + with.Error);
        Assert.Equal("[1, 0, 0]", Line(with.Output, "message index"));
        Assert.Equal("vectors.nesting.v1.Customer.Address.Geo", Line(with.Output, "type"));
        Assert.DoesNotContain("hint", with.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Frame_AMirroredPath_NamingAnotherTypeThanTheExpectedOne_GetsTheHint()
    {
        ConfluentVector shipment = Old("Order.Shipment"); // [0, 1] written as [1, 0]: Customer.Address, silently, without --type

        ToolProcess.Result plain = await ToolProcess.RunAsync("frame", Convert.ToHexString(shipment.Data), "--descriptor-set", NestingSet());
        ToolProcess.Result expected = await ToolProcess.RunAsync(
            "frame", Convert.ToHexString(shipment.Data), "--descriptor-set", NestingSet(), "--type", "vectors.nesting.v1.Order.Shipment");
        ToolProcess.Result flagged = await ToolProcess.RunAsync(
            "frame", Convert.ToHexString(shipment.Data), "--descriptor-set", NestingSet(), "--type", "vectors.nesting.v1.Order.Shipment", "--message-index-order", "innermost-first");

        Assert.Equal(0, plain.ExitCode); // the payload decodes as an Address too: nothing in the bytes tells
        Assert.Equal("vectors.nesting.v1.Customer.Address", Line(plain.Output, "type"));
        Assert.Equal(1, expected.ExitCode);
        Assert.Equal("message-index path [1, 0] names vectors.nesting.v1.Customer.Address, not vectors.nesting.v1.Order.Shipment", Line(expected.Output, "error"));
        Assert.Contains("[0, 1], which names vectors.nesting.v1.Order.Shipment", Line(expected.Output, "hint"), StringComparison.Ordinal);
        Assert.True(flagged.ExitCode == 0, flagged.Output + flagged.Error);
        Assert.Equal("vectors.nesting.v1.Order.Shipment", Line(flagged.Output, "type"));
    }

    [Fact]
    public async Task Frame_ARightRecordReadInnermostFirst_GetsTheHintToDropTheFlag()
    {
        ConfluentVector geo = ConfluentVector.Nesting("2.11.1")["confluent-dotnet-2.11.1/prefix/value/Customer.Address.Geo"];

        ToolProcess.Result run = await ToolProcess.RunAsync("frame", Convert.ToHexString(geo.Data), "--descriptor-set", NestingSet(), "--message-index-order", "innermost-first");

        Assert.Equal(1, run.ExitCode);
        Assert.Contains("read it without --message-index-order innermost-first", Line(run.Output, "hint"), StringComparison.Ordinal);
    }

    [Fact]
    public async Task TypeWithoutASchemaSource_IsAUsageError()
    {
        ToolProcess.Result run = await ToolProcess.RunAsync("frame", Convert.ToHexString(Old("Order").Data), "--type", "vectors.nesting.v1.Order");

        Assert.Equal(2, run.ExitCode);
        Assert.Contains("--type needs --schema-registry or --descriptor-set", run.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Consume_ATopicOf2_11_0Records_ReadsThemAllWithTheFlag_AndHintsWithoutIt()
    {
        using EmbeddedKafkaCluster cluster = EmbeddedKafkaCluster.Start(1);
        ConfluentVector[] records = [.. ConfluentVector.Nesting("2.11.0").Values.Where(v => v.Component == MessageComponentType.Value)];
        OrderTopic.ProduceRaw(cluster, "nesting", [.. records.Select(v => new Message<byte[], byte[]> { Value = v.Data, Headers = v.KafkaHeaders() })]);
        string[] common = ["consume", "-b", cluster.BootstrapServers, "-t", "nesting", "--from-beginning", "--until-end", "--descriptor-set", NestingSet()];

        ToolProcess.Result with = await ToolProcess.RunAsync([.. common, "--message-index-order", "innermost-first"]);
        ToolProcess.Result without = await ToolProcess.RunAsync(common);

        Assert.True(with.ExitCode == 0, with.Error);
        List<JsonElement> read = Lines(with.Output);
        Assert.Equal(records.Select(v => v.Type), read.Select(r => r.GetProperty("value").GetProperty("type").GetString()));
        Assert.True(without.ExitCode == 0, without.Error);
        List<JsonElement> plain = Lines(without.Output);
        Assert.Equal(records.Length, plain.Count);
        var hinted = plain.Where(r => r.GetProperty("value").TryGetProperty("hint", out _)).Select(r => r.GetProperty("offset").GetInt32()).ToList();
        Assert.Equal(
            records.Select((v, offset) => (v, offset)).Where(p => NestingTypes.At(p.v.IndexPath) is null).Select(p => p.offset),
            hinted); // Geo and Entry, in the prefix and in the header: their written paths name nothing
        Assert.All(hinted, offset => Assert.Contains("innermost-first", plain[offset].GetProperty("value").GetProperty("hint").GetString(), StringComparison.Ordinal));
    }

    private static List<JsonElement> Lines(string output) =>
        [.. output.Split('\n', StringSplitOptions.RemoveEmptyEntries).Select(line => JsonDocument.Parse(line).RootElement.Clone())];
}
