using System;
using System.IO;
using System.Threading.Tasks;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tool.Commands;
using Xunit;

namespace KafkaProtobuf.Tests.Tool;

/// <summary>
/// <c>kafka-protobuf schema validate</c>: a file compiles with its imports found locally, or, with a registry, from the
/// subject its import path names (a file is valid before its imports are registered locally, and after).
/// </summary>
public sealed class SchemaValidateToolTests : IDisposable
{
    private const string Money = "syntax = \"proto3\";\npackage shop;\nmessage Money { int64 units = 1; }\n";
    private const string Order = "syntax = \"proto3\";\npackage shop;\nimport \"shop/money.proto\";\nimport \"google/protobuf/timestamp.proto\";\nmessage Order { Money total = 1; google.protobuf.Timestamp at = 2; }\n";

    private readonly string _directory = Directory.CreateTempSubdirectory("schema-validate-").FullName;

    public void Dispose() => Directory.Delete(_directory, recursive: true);

    [Fact]
    public async Task AFileWithItsImportsBelowTheRoots_IsValid()
    {
        Directory.CreateDirectory(Path.Combine(_directory, "shop"));
        File.WriteAllText(Path.Combine(_directory, "shop", "money.proto"), Money);
        string order = Path.Combine(_directory, "shop", "order.proto");
        File.WriteAllText(order, Order);

        (int exit, string output, string error) = await InProcessTool.RunAsync("schema", "validate", order, "-I", _directory);

        Assert.True(exit == 0, error);
        Assert.Equal("valid shop/order.proto (3 files)\n", output);
    }

    [Fact]
    public async Task AnImportOnlyTheRegistryHas_IsReadFromTheSubjectItsPathNames()
    {
        using var registry = InProcessSchemaRegistry.Start();
        using var client = new RegistryClient(registry.Url);
        await client.RegisterAsync("shop/money.proto", Money, "PROTOBUF", [], normalize: false);
        string order = Path.Combine(_directory, "order.proto");
        File.WriteAllText(order, Order);

        (int without, _, string withoutError) = await InProcessTool.RunAsync("schema", "validate", order);
        Assert.Equal(ExitCodes.Usage, without);
        Assert.Contains("order.proto:3:8: unable to find: 'shop/money.proto'", withoutError, StringComparison.Ordinal);

        (int exit, string output, string error) = await InProcessTool.RunAsync("schema", "validate", order, "--schema-registry", registry.Url);
        Assert.True(exit == 0, error);
        Assert.Equal("valid order.proto (3 files; from the registry: shop/money.proto v1)\n", output);
        Assert.Equal(1, registry.RequestCount("/subjects/shop%2Fmoney.proto/versions/latest"));
        Assert.Equal(0, registry.RequestCount("/subjects/google%2Fprotobuf%2Ftimestamp.proto/versions/latest")); // built in, never asked
    }

    [Fact]
    public async Task AFileThatDoesNotCompile_IsExitCode2_WithItsLineAndColumn()
    {
        string bad = Path.Combine(_directory, "bad.proto");
        File.WriteAllText(bad, "syntax = \"proto3\";\nmessage Order {\n  int32 quantity = one;\n}\n");

        (int exit, string output, string error) = await InProcessTool.RunAsync("schema", "validate", bad);

        Assert.Equal(ExitCodes.Usage, exit);
        Assert.Empty(output);
        Assert.StartsWith("kafka-protobuf schema validate: bad.proto:3:20: ", error, StringComparison.Ordinal);
    }
}
