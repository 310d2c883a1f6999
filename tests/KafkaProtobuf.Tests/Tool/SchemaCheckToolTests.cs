using System;
using System.IO;
using System.Linq;
using System.Text.Json;
using System.Threading.Tasks;
using Google.Protobuf;
using KafkaProtobuf.Tool.Commands;
using Xunit;
using static KafkaProtobuf.Tests.Registry.Compatibility.ProtoFiles;

namespace KafkaProtobuf.Tests.Tool;

/// <summary><c>kafka-protobuf schema check OLD NEW</c> on descriptor sets: the differences, the verdict, the exit code, text and JSON.</summary>
public sealed class SchemaCheckToolTests : IDisposable
{
    private readonly string _directory = Directory.CreateTempSubdirectory("schema-check-").FullName;

    public void Dispose() => Directory.Delete(_directory, recursive: true);

    [Fact]
    public async Task AnIncompatibleChange_IsListedWithKindAndPath_AndExitsWith1()
    {
        string old = Write("v1.pb", "message Order { int32 quantity = 1; string note = 2; }");
        string changed = Write("v2.pb", "message Order { sint32 quantity = 1; }");

        (int exit, string output, string error) = await Run("schema", "check", old, changed);

        Assert.Equal(SchemaCommand.Incompatible, exit);
        Assert.Empty(error);
        Assert.Contains("  INCOMPATIBLE FIELD_SCALAR_KIND_CHANGED #/Order/1: The scalar type of the field at path '#/Order/1'", output, StringComparison.Ordinal);
        Assert.Contains("  compatible   FIELD_REMOVED #/Order/2: ", output, StringComparison.Ordinal);
        Assert.EndsWith("Not compatible at BACKWARD: 1 incompatible difference.\n", output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ACompatibleChange_ExitsWith0_AndJsonSaysWhatTheTextSays()
    {
        string old = Write("v1.pb", "message Order { int32 quantity = 1; }");
        string changed = Write("v2.pb", "message Order { int64 quantity = 1; string note = 2; }");

        (int exit, string output, _) = await Run("schema", "check", old, changed, "--level", "full_transitive", "--output", "json");

        Assert.Equal(0, exit);
        using JsonDocument json = JsonDocument.Parse(output);
        Assert.True(json.RootElement.GetProperty("compatible").GetBoolean());
        Assert.Equal("FULL_TRANSITIVE", json.RootElement.GetProperty("level").GetString());
        Assert.Equal(
            ["FIELD_ADDED #/Order/2 backward", "FIELD_REMOVED #/Order/2 forward"],
            json.RootElement.GetProperty("differences").EnumerateArray()
                .Select(d => d.GetProperty("kind").GetString() + " " + d.GetProperty("path").GetString() + " " + d.GetProperty("direction").GetString()));
        Assert.All(json.RootElement.GetProperty("differences").EnumerateArray(), d => Assert.True(d.GetProperty("compatible").GetBoolean()));
    }

    [Fact]
    public async Task TheSameChangeAtLevelNone_IsCompatible()
    {
        string old = Write("v1.pb", "message Order { int32 quantity = 1; }");
        string changed = Write("v2.pb", "message Order { string quantity = 1; }");

        Assert.Equal(SchemaCommand.Incompatible, (await Run("schema", "check", old, changed)).Exit);
        Assert.Equal(0, (await Run("schema", "check", old, changed, "--level", "NONE")).Exit);
    }

    [Theory]
    [InlineData("missing.pb", null, "missing.pb")]
    [InlineData("garbage", null, "")]
    [InlineData("v1.pb", "--level=SIDEWAYS", "--level is one of")]
    [InlineData("v1.pb", "--file=other.proto", "holds no file named 'other.proto'")]
    public async Task AFileThatCannotBeRead_OrABadOption_IsAUsageError(string oldName, string? option, string expected)
    {
        Write("v1.pb", "message Order { int32 quantity = 1; }");
        File.WriteAllBytes(Path.Combine(_directory, "garbage"), [0xFF, 0xFF, 0xFF]);
        string changed = Write("v2.pb", "message Order { int32 quantity = 1; }");

        (int exit, _, string error) = await Run(option is null ? ["schema", "check", Path.Combine(_directory, oldName), changed] : ["schema", "check", Path.Combine(_directory, oldName), changed, option]);

        Assert.Equal(ExitCodes.Usage, exit);
        Assert.StartsWith("kafka-protobuf schema check: ", error, StringComparison.Ordinal);
        Assert.Contains(expected, error, StringComparison.Ordinal);
    }

    private string Write(string name, string body)
    {
        string path = Path.Combine(_directory, name);
        File.WriteAllBytes(path, Set(("order.proto", WithHeader(body))).ToByteArray());
        return path;
    }

    private static async Task<(int Exit, string Output, string Error)> Run(params string[] args)
    {
        using var output = new StringWriter();
        using var error = new StringWriter();
        int exit = await KafkaProtobufTool.RunAsync(args, output, error);
        return (exit, output.ToString().Replace("\r\n", "\n", StringComparison.Ordinal), error.ToString());
    }
}
