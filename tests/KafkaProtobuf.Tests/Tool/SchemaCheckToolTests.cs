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

/// <summary><c>kafka-protobuf schema check OLD NEW</c> on descriptor sets and .proto files, and <c>NEW --registry URL --subject S</c>: the differences, the verdict, the exit code, text and JSON.</summary>
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
        Assert.Equal(1, json.RootElement.GetProperty("format").GetInt32());
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

    [Fact]
    public async Task ProtoFiles_AreCompiled_ImportsFromTheirDirectoryThenEachProtoPath()
    {
        // v1 imports money.proto from its own directory; v2's directory has none, so it comes from --proto-path.
        string v1Dir = Directory.CreateDirectory(Path.Combine(_directory, "v1")).FullName;
        string v2Dir = Directory.CreateDirectory(Path.Combine(_directory, "v2")).FullName;
        string shared = Directory.CreateDirectory(Path.Combine(_directory, "shared", "shop")).FullName;
        const string Money = "syntax = \"proto3\";\npackage shop;\nmessage Money { int64 units = 1; }\n";
        Directory.CreateDirectory(Path.Combine(v1Dir, "shop"));
        File.WriteAllText(Path.Combine(v1Dir, "shop", "money.proto"), Money);
        File.WriteAllText(Path.Combine(shared, "money.proto"), Money.Replace("int64 units", "string units", StringComparison.Ordinal));
        const string Order = "syntax = \"proto3\";\npackage shop;\nimport \"shop/money.proto\";\nmessage Order { Money total = 1; }\n";
        File.WriteAllText(Path.Combine(v1Dir, "order.proto"), Order);
        File.WriteAllText(Path.Combine(v2Dir, "order.proto"), Order);

        (int exit, string output, string error) = await Run("schema", "check", Path.Combine(v1Dir, "order.proto"), Path.Combine(v2Dir, "order.proto"), "--proto-path", Path.Combine(_directory, "shared"));

        Assert.Equal(SchemaCommand.Incompatible, exit);
        Assert.Empty(error);
        Assert.Contains("INCOMPATIBLE FIELD_SCALAR_KIND_CHANGED #/Money/1", output, StringComparison.Ordinal);

        // Without the import path, v2's import cannot be found: a usage error naming the file, line and column.
        (int missing, _, string missingError) = await Run("schema", "check", Path.Combine(v1Dir, "order.proto"), Path.Combine(v2Dir, "order.proto"));
        Assert.Equal(ExitCodes.Usage, missing);
        Assert.Contains("order.proto:3:8: unable to find: 'shop/money.proto'", missingError, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AProtoFileThatDoesNotCompile_IsAUsageError_WithLineAndColumn()
    {
        string good = Path.Combine(_directory, "good.proto");
        string bad = Path.Combine(_directory, "bad.proto");
        File.WriteAllText(good, "syntax = \"proto3\";\nmessage Order { int32 quantity = 1; }\n");
        File.WriteAllText(bad, "syntax = \"proto3\";\nmessage Order {\n  int32 quantity = one;\n}\n");

        (int exit, string output, string error) = await Run("schema", "check", good, bad);

        Assert.Equal(ExitCodes.Usage, exit);
        Assert.Empty(output);
        Assert.StartsWith("kafka-protobuf schema check: bad.proto:3:20: ", error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AgainstARegistrySubject_ComparesEveryVersionAtTheSubjectsLevel()
    {
        using var registry = KafkaProtobuf.Testing.InProcessSchemaRegistry.Start();
        using var client = new KafkaProtobuf.SchemaRegistry.RegistryClient(registry.Url);
        await client.RegisterAsync("orders-value", "syntax = \"proto3\";\npackage shop;\nmessage Order { int32 quantity = 1; }\n", "PROTOBUF", [], normalize: false);
        await client.RegisterAsync("orders-value", "syntax = \"proto3\";\npackage shop;\nmessage Order { string id = 2; }\n", "PROTOBUF", [], normalize: false);
        string update = Path.Combine(_directory, "order.proto");
        File.WriteAllText(update, "syntax = \"proto3\";\npackage shop;\nmessage Order { string id = 2; string quantity = 1; }\n");

        // BACKWARD (the subject has no level; the global default): only the latest version, which has no field 1.
        (int backward, string output, string error) = await Run("schema", "check", update, "--registry", registry.Url, "--subject", "orders-value");
        Assert.True(backward == 0, output + error);
        Assert.EndsWith("Compatible at BACKWARD.\nThe registry: compatible.\n", output, StringComparison.Ordinal);

        // The subject's own level, read from the registry: version 1 (int32 quantity) now counts.
        using (var http = new System.Net.Http.HttpClient())
        {
            using var body = new System.Net.Http.StringContent("{\"compatibility\":\"BACKWARD_TRANSITIVE\"}");
            (await http.PutAsync(registry.Url + "/config/orders-value", body)).EnsureSuccessStatusCode();
        }

        (int transitive, string transitiveOutput, _) = await Run("schema", "check", update, "--registry", registry.Url, "--subject", "orders-value", "--output", "json");
        Assert.Equal(SchemaCommand.Incompatible, transitive);
        using JsonDocument json = JsonDocument.Parse(transitiveOutput);
        Assert.Equal("BACKWARD_TRANSITIVE", json.RootElement.GetProperty("level").GetString());
        Assert.Contains(json.RootElement.GetProperty("differences").EnumerateArray(), d => d.GetProperty("kind").GetString() == "FIELD_SCALAR_KIND_CHANGED" && d.GetProperty("path").GetString() == "#/Order/1");

        // The registry's own verdict, beside this check's: the same.
        JsonElement registryVerdict = json.RootElement.GetProperty("registry");
        Assert.False(registryVerdict.GetProperty("compatible").GetBoolean());
        Assert.True(registryVerdict.GetProperty("agrees").GetBoolean());
        Assert.NotEmpty(registryVerdict.GetProperty("messages").EnumerateArray());

        // What the tool says is what the registry does: the registration is refused.
        await Assert.ThrowsAsync<KafkaProtobuf.SchemaRegistry.SchemaRegistryRequestException>(() => client.RegisterAsync("orders-value", File.ReadAllText(update), "PROTOBUF", [], normalize: false));

        // A subject with no versions: nothing to compare with.
        Assert.Equal(0, (await Run("schema", "check", update, "--registry", registry.Url, "--subject", "new-value")).Exit);
    }

    [Fact]
    public async Task WhenTheRegistryAndThisCheckDisagree_ItIsSaid_AndTheStricterVerdictDecidesTheExitCode()
    {
        // A registry whose subject is at NONE accepts what BACKWARD, asked for here, refuses.
        using var registry = KafkaProtobuf.Testing.InProcessSchemaRegistry.Start();
        using var client = new KafkaProtobuf.SchemaRegistry.RegistryClient(registry.Url);
        await client.RegisterAsync("orders-value", "syntax = \"proto3\";\npackage shop;\nmessage Order { int32 quantity = 1; }\n", "PROTOBUF", [], normalize: false);
        await client.SetCompatibilityLevelAsync("orders-value", KafkaProtobuf.SchemaRegistry.CompatibilityLevel.None);
        string update = Path.Combine(_directory, "order.proto");
        File.WriteAllText(update, "syntax = \"proto3\";\npackage shop;\nmessage Order { string quantity = 1; }\n");

        (int exit, string output, _) = await Run("schema", "check", update, "--registry", registry.Url, "--subject", "orders-value", "--level", "BACKWARD");

        Assert.Equal(SchemaCommand.Incompatible, exit);
        Assert.Contains("Not compatible at BACKWARD: 1 incompatible difference.\nThe registry: compatible.\n", output, StringComparison.Ordinal);
        Assert.EndsWith("The registry and this check disagree: the registry would accept what this check refuses; the registry decides at registration.\n", output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AnImportTheRegistryDoesNotHold_LeavesItNothingToJudge_AndThatIsSaid()
    {
        using var registry = KafkaProtobuf.Testing.InProcessSchemaRegistry.Start();
        using var client = new KafkaProtobuf.SchemaRegistry.RegistryClient(registry.Url);
        await client.RegisterAsync("orders-value", "syntax = \"proto3\";\npackage shop;\nmessage Order { int32 quantity = 1; }\n", "PROTOBUF", [], normalize: false);
        Directory.CreateDirectory(Path.Combine(_directory, "shop"));
        File.WriteAllText(Path.Combine(_directory, "shop", "money.proto"), "syntax = \"proto3\";\npackage shop;\nmessage Money { int64 units = 1; }\n");
        string update = Path.Combine(_directory, "order.proto");
        File.WriteAllText(update, "syntax = \"proto3\";\npackage shop;\nimport \"shop/money.proto\";\nmessage Order { int32 quantity = 1; Money total = 2; }\n");

        (int exit, string output, _) = await Run("schema", "check", update, "--registry", registry.Url, "--subject", "orders-value");

        Assert.Equal(0, exit); // this check's verdict stands alone
        Assert.Contains("Compatible at BACKWARD.\nThe registry: not asked: an import of NEW is not registered as it is here, so the registry cannot judge NEW", output, StringComparison.Ordinal);
        Assert.DoesNotContain("disagree", output, StringComparison.Ordinal);
        Assert.DoesNotContain("shop/money.proto", await client.GetSubjectsAsync()); // looked up, never registered
    }

    [Fact]
    public async Task ARegistryThatCannotBeAsked_Exits3_AndRegistryWithoutSubject_IsAUsageError()
    {
        string update = Path.Combine(_directory, "order.proto");
        File.WriteAllText(update, "syntax = \"proto3\";\nmessage Order { int32 quantity = 1; }\n");
        using var registry = KafkaProtobuf.Testing.InProcessSchemaRegistry.Start();
        string url = registry.Url;
        registry.Stop();

        (int exit, _, string error) = await Run("schema", "check", update, "--registry", url, "--subject", "orders-value");
        Assert.Equal(ExitCodes.ConnectionFailure, exit);
        Assert.Contains("the registry could not be asked", error, StringComparison.Ordinal);

        Assert.Equal(ExitCodes.Usage, (await Run("schema", "check", update, "--registry", url)).Exit);
        (int noSecret, _, string secretError) = await Run("schema", "check", update, "--registry", url, "--subject", "s", "--registry-basic-auth-file", Path.Combine(_directory, "no-such-file"));
        Assert.Equal(ExitCodes.Usage, noSecret);
        Assert.Contains("no-such-file", secretError, StringComparison.Ordinal);
        Assert.Equal(ExitCodes.Usage, (await Run("schema", "check", update, update, "--registry", url, "--subject", "s")).Exit);
        Assert.Equal(ExitCodes.Usage, (await Run("schema", "check", update)).Exit);
    }

    private string Write(string name, string body)
    {
        string path = Path.Combine(_directory, name);
        File.WriteAllBytes(path, Set(("order.proto", WithHeader(body))).ToByteArray());
        return path;
    }

    private static Task<(int Exit, string Output, string Error)> Run(params string[] args) => InProcessTool.RunAsync(args);
}
