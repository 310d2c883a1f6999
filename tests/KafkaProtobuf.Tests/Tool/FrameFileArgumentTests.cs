using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.Json;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.Framing;
using Vectors.Telemetry.V1;
using Xunit;

namespace KafkaProtobuf.Tests.Tool;

/// <summary>
/// <c>kafka-protobuf frame @FILE</c> run as a process: the file's raw bytes are the record, whatever they hold, and the
/// parser never treats the token as a response file (which spliced the file's contents into the command line).
/// </summary>
public sealed class FrameFileArgumentTests : IDisposable
{
    private static readonly JsonFormatter Formatter = new(JsonFormatter.Settings.Default);
    private readonly List<string> _files = [];

    public void Dispose()
    {
        foreach (string file in _files)
        {
            File.Delete(file);
        }
    }

    [Fact]
    public async Task AtFile_TheIssuesRecord_IsReadAsBytes_NotAsAResponseFile()
    {
        // printf '\x00\x00\x00\x00\x01\x00\x0a\x03abc' > record.bin: "abc" was taken for a command-line argument.
        string file = Write([0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x0a, 0x03, (byte)'a', (byte)'b', (byte)'c']);

        ToolProcess.Result run = await ToolProcess.RunAsync("frame", "@" + file, "--descriptor-set", TelemetrySet());

        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Contains("bytes          11: 00 00 00 00 01 00 0a 03 61 62 63\n", run.Output, StringComparison.Ordinal);
        Assert.Contains("payload        5 bytes at 6", run.Output, StringComparison.Ordinal);
        Assert.Equal(Compact(Formatter.Format(new Reading { SensorId = "abc" })), Compact(MessageLine(run.Output)));
    }

    [Fact]
    public async Task AtFile_BinaryBytes_NulsNewlinesAndTextThatLooksLikeOptions_AreTheRecord()
    {
        // Bytes a response-file reader would split into tokens: options, another @file, a newline, a NUL.
        var reading = new Reading
        {
            SensorId = "--help\n-X a=b @other.rsp --schema-registry http://127.0.0.1:1 \"quoted\"",
            Raw = ByteString.CopyFrom(0x00, 0x0a, 0x0d, (byte)'@', 0xff, 0x00),
            Delta = -1,
        };
        byte[] record = Framed(reading);
        string file = Write(record);

        ToolProcess.Result run = await ToolProcess.RunAsync("frame", "@" + file, "--descriptor-set", TelemetrySet());

        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Contains($"bytes          {record.Length}: {Convert.ToHexString(record.AsSpan(0, 8)).ToLowerInvariant().Chunk(2).Select(c => new string(c)).Aggregate((a, b) => a + " " + b)}", run.Output, StringComparison.Ordinal);
        Assert.Equal(Compact(Formatter.Format(reading)), Compact(MessageLine(run.Output)));
    }

    [Fact]
    public async Task AtFile_ARecordLargerThanOneCommandLineArgumentCanBe_IsDecoded_AndItsHexIsShortened()
    {
        // Linux limits one argument to 128 KiB (MAX_ARG_STRLEN): this record could not be given as hex or base64.
        var reading = new Reading { SensorId = new string('s', 150_000), Raw = ByteString.CopyFrom(Enumerable.Range(0, 60_000).Select(i => (byte)i).ToArray()) };
        byte[] record = Framed(reading);
        Assert.True(record.Length > 200_000);
        string file = Write(record);

        ToolProcess.Result run = await ToolProcess.RunAsync("frame", "@" + file, "--descriptor-set", TelemetrySet());

        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Contains($"bytes          {record.Length}: 00 00 00 00 01 00 ", run.Output, StringComparison.Ordinal);
        Assert.Contains("... (the first 256 shown)", run.Output, StringComparison.Ordinal);
        Assert.Contains($"payload        {record.Length - 6} bytes at 6", run.Output, StringComparison.Ordinal);
        Assert.Equal(Compact(Formatter.Format(reading)), Compact(MessageLine(run.Output)));
    }

    [Fact]
    public async Task AtFile_TheSchemaIdHeaderToo_ReadsAGuidFramedRecordFromTwoFiles()
    {
        var reading = new Reading { SensorId = "in a header" };
        Guid guid = Guid.Parse("6d1f6e47-3b0e-4e0f-9a1c-2f1d3e4c5b6a");
        var headers = new Headers();
        byte[] value = new FramedProtobufSerializer<Reading>(SchemaIdentifier.FromGuid(guid), new FramedSerializerOptions { SchemaIdPlacement = SchemaIdPlacement.Header })
            .Serialize(reading, new SerializationContext(MessageComponentType.Value, "t", headers))!;
        string valueFile = Write(value);
        string headerFile = Write(headers.GetLastBytes(SchemaIdHeaderNames.Value));

        ToolProcess.Result run = await ToolProcess.RunAsync("frame", "@" + valueFile, "--schema-id-header", "@" + headerFile, "--descriptor-set", TelemetrySet());

        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Contains("schema         GUID " + guid.ToString("D"), run.Output, StringComparison.Ordinal);
        Assert.Equal(Compact(Formatter.Format(reading)), Compact(MessageLine(run.Output)));
    }

    [Fact]
    public async Task AtFile_AMissingFile_IsAUsageError_NamingTheFile()
    {
        string missing = Path.Combine(Path.GetTempPath(), "kafka-protobuf-missing-" + Guid.NewGuid().ToString("N") + ".bin");

        ToolProcess.Result run = await ToolProcess.RunAsync("frame", "@" + missing);

        Assert.Equal(2, run.ExitCode);
        Assert.Contains("cannot read " + missing, run.Error, StringComparison.Ordinal);
        Assert.Empty(run.Output);
    }

    private static byte[] Framed(Reading reading) =>
        new FramedProtobufSerializer<Reading>(SchemaIdentifier.FromId(1)).Serialize(reading, new SerializationContext(MessageComponentType.Value, "t", []))!;

    private string Write(byte[] bytes)
    {
        string path = Path.GetTempFileName();
        _files.Add(path);
        File.WriteAllBytes(path, bytes);
        return path;
    }

    private string TelemetrySet() => OrderTopic.WriteDescriptorSet(_files, Google.Protobuf.WellKnownTypes.TimestampReflection.Descriptor, TelemetryReflection.Descriptor);

    private static string MessageLine(string output) =>
        output.Split('\n').Single(l => l.StartsWith("message        ", StringComparison.Ordinal))["message        ".Length..];

    private static string Compact(string json) => JsonSerializer.Serialize(JsonDocument.Parse(json).RootElement);
}
