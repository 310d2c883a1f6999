using System;
using System.IO;
using System.Linq;
using System.Text.Json;
using System.Threading.Tasks;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tests.Registry;
using KafkaProtobuf.Tests.Support;
using KafkaProtobuf.Tool.Commands;
using Xunit;

namespace KafkaProtobuf.Tests.Tool;

/// <summary>
/// <c>kafka-protobuf schema baseline write</c> and <c>schema check --baseline</c>: a committed baseline, offline, imports
/// included; each incompatible change at its file, line and column (protoc's source positions) in msvs form; warn-only,
/// suppressions, a removed file, history for transitive levels, and the registry's versions instead.
/// </summary>
public sealed class SchemaBaselineToolTests : IDisposable
{
    private readonly string _directory = Directory.CreateTempSubdirectory("schema-baseline-").FullName;
    private readonly string _protos;
    private readonly string _baseline;

    public SchemaBaselineToolTests()
    {
        // A copy of the registry tests' writer files (orders.proto imports common.proto and timestamp.proto), to edit.
        _protos = Path.Combine(_directory, "protos");
        string source = Path.Combine(RepositoryRoot.Path, "tests", "KafkaProtobuf.Tests", "RegistryProtos", "writer");
        foreach (string file in Directory.EnumerateFiles(source, "*.proto", SearchOption.AllDirectories))
        {
            string target = Path.Combine(_protos, Path.GetRelativePath(source, file));
            Directory.CreateDirectory(Path.GetDirectoryName(target)!);
            File.Copy(file, target);
        }

        _baseline = Path.Combine(_directory, "baseline");
    }

    private string Orders => Path.Combine(_protos, "shop", "v1", "orders.proto");

    private string Common => Path.Combine(_protos, "shop", "v1", "common.proto");

    public void Dispose() => Directory.Delete(_directory, recursive: true);

    [Fact]
    public async Task TheBaseline_HoldsOneFilePerSubject_ImportsIncluded_AndAnUnchangedFileIsNotANewVersion()
    {
        (int exit, string output, string error) = await WriteBaseline();
        Assert.True(exit == 0, error);
        Assert.Equal("recorded orders-value (shop/v1/orders.proto, BACKWARD) in orders-value.json\n", output);

        using (JsonDocument entry = JsonDocument.Parse(File.ReadAllText(Path.Combine(_baseline, "orders-value.json"))))
        {
            Assert.Equal(1, entry.RootElement.GetProperty("format").GetInt32());
            Assert.Equal("shop/v1/orders.proto", entry.RootElement.GetProperty("file").GetString());
            JsonElement files = Assert.Single(entry.RootElement.GetProperty("versions").EnumerateArray()).GetProperty("files").GetProperty("file");
            Assert.Equal(["google/protobuf/timestamp.proto", "shop/v1/common.proto", "shop/v1/orders.proto"], files.EnumerateArray().Select(f => f.GetProperty("name").GetString()));
        }

        (_, string again, _) = await WriteBaseline();
        Assert.Equal("unchanged: orders-value (shop/v1/orders.proto, BACKWARD) in orders-value.json\n", again);
        (int check, string checkOutput, _) = await InProcessTool.RunAsync("schema", "check", "--baseline", _baseline, "-I", _protos);
        Assert.Equal(0, check);
        Assert.Equal("Compatible: 1 subject checked.\n", checkOutput);
    }

    [Fact]
    public async Task AnIncompatibleEdit_IsAnMsvsErrorAtTheFieldsLineAndColumn_InTheImportedFileToo()
    {
        await WriteBaseline();
        Edit(Common, "int64 units = 2;", "string units = 2;");
        Edit(Orders, "    int32 quantity = 2;", "    string quantity = 2;");
        string set = DescriptorSet();

        (int exit, string output, string error) = await InProcessTool.RunAsync(
            "schema", "check", "--baseline", _baseline, "--descriptor-set", set, "-I", _protos, "--output", "msvs");

        Assert.Equal(SchemaCommand.Incompatible, exit);
        Assert.Empty(error);
        // Each type changed, and each field naming a changed type (FIELD_NAMED_TYPE_CHANGED, KPS1014), as the registry says.
        string[] lines = output.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal(4, lines.Length);
        Assert.Equal(2, lines.Count(l => l.Contains(": error KPS1014: FIELD_NAMED_TYPE_CHANGED ", StringComparison.Ordinal)));
        (int ordersLine, int ordersColumn) = Where(Orders, "string quantity = 2;");
        (int commonLine, int commonColumn) = Where(Common, "string units = 2;");
        Assert.Contains(lines, l => l.StartsWith(Orders + "(" + ordersLine + "," + ordersColumn + "): error KPS1013: FIELD_SCALAR_KIND_CHANGED #/OrderPlaced/Line/2: ", StringComparison.Ordinal));
        Assert.Contains(lines, l => l.StartsWith(Common + "(" + commonLine + "," + commonColumn + "): error KPS1013: FIELD_SCALAR_KIND_CHANGED #/Money/2: ", StringComparison.Ordinal));
        Assert.All(lines, l => Assert.EndsWith("(orders-value at BACKWARD, against version 1)", l, StringComparison.Ordinal));
    }

    [Fact]
    public async Task ARemovedMessagesFinding_IsAtTheMessageThatHeldIt_AndAPackageChangeAtThePackageStatement()
    {
        await WriteBaseline();
        Edit(Orders, "  Carrier carrier = 3;\n", string.Empty);
        Edit(Orders, "  message Carrier {\n    string name = 1;\n    string tracking = 2;\n  }\n", string.Empty);
        Edit(Orders, "package shop.v1;", "package shop.v2;");
        Edit(Orders, "  Money total = 3;", "  shop.v1.Money total = 3;");
        Edit(Orders, "  Address to = 2;", "  shop.v1.Address to = 2;");
        string set = DescriptorSet();

        (int exit, string output, _) = await InProcessTool.RunAsync("schema", "check", "--baseline", _baseline, "--descriptor-set", set, "-I", _protos, "--output", "json", "--level", "FULL");

        Assert.Equal(SchemaCommand.Incompatible, exit);
        using JsonDocument json = JsonDocument.Parse(output);
        JsonElement[] findings = json.RootElement.GetProperty("findings").EnumerateArray().ToArray();
        JsonElement removed = findings.Single(f => f.GetProperty("path").GetString() == "#/OrderShipped/Carrier");
        Assert.Equal("KPS1002", removed.GetProperty("code").GetString());
        Assert.Equal(Where(Orders, "message OrderShipped").Line, removed.GetProperty("line").GetInt32());
        JsonElement package = findings.Single(f => f.GetProperty("path").GetString() == "#/");
        Assert.Equal(Where(Orders, "package shop.v2;").Line, package.GetProperty("line").GetInt32());
        Assert.Equal("FULL", package.GetProperty("level").GetString());
    }

    [Fact]
    public async Task WithoutADescriptorSet_TheFilesAreCompiledFromTheRoots_AndFindingsNameTheirFileWithoutALine()
    {
        await WriteBaseline();
        Edit(Orders, "    int32 quantity = 2;", "    string quantity = 2;");

        (int exit, string output, _) = await InProcessTool.RunAsync("schema", "check", "--baseline", _baseline, "-I", _protos, "--output", "msvs");

        Assert.Equal(SchemaCommand.Incompatible, exit);
        Assert.StartsWith(Orders + ": error KPS1013: FIELD_SCALAR_KIND_CHANGED #/OrderPlaced/Line/2: ", output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task WarnOnly_ReportsWarnings_AndExits0()
    {
        await WriteBaseline();
        Edit(Orders, "    int32 quantity = 2;", "    string quantity = 2;");

        (int exit, string output, _) = await InProcessTool.RunAsync("schema", "check", "--baseline", _baseline, "-I", _protos, "--output", "msvs", "--warn-only");

        Assert.Equal(0, exit);
        Assert.Contains(": warning KPS1013: ", output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AcceptedBreaks_AreWrittenToTheSuppressionsFile_AndNoLongerFailTheCheck()
    {
        await WriteBaseline();
        Edit(Orders, "    int32 quantity = 2;", "    string quantity = 2;");
        string suppressions = Path.Combine(_directory, "SchemaCompatibilitySuppressions.xml");
        string[] check = ["schema", "check", "--baseline", _baseline, "-I", _protos, "--suppressions", suppressions];

        (int written, string writtenOutput, _) = await InProcessTool.RunAsync([.. check, "--write-suppressions"]);
        Assert.Equal(0, written);
        Assert.Equal("wrote 2 suppressions to " + suppressions + "\n", writtenOutput); // the field, and the field naming its message
        Assert.Contains("<DiagnosticId>KPS1013</DiagnosticId>", File.ReadAllText(suppressions), StringComparison.Ordinal);

        (int exit, string output, _) = await InProcessTool.RunAsync(check);
        Assert.Equal(0, exit);
        Assert.StartsWith("  suppressed   KPS1013 ", output, StringComparison.Ordinal);

        // Another break is not covered by it.
        Edit(Orders, "  string reason = 2;", "  int64 reason = 2;");
        Assert.Equal(SchemaCommand.Incompatible, (await InProcessTool.RunAsync(check)).Exit);
    }

    [Fact]
    public async Task ASuppressionsFileWithADtd_IsRefused_NotExpanded()
    {
        await WriteBaseline();
        string suppressions = Path.Combine(_directory, "suppressions.xml");
        File.WriteAllText(suppressions, "<?xml version=\"1.0\"?>\n<!DOCTYPE Suppressions [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">]>\n<Suppressions>&b;</Suppressions>\n");

        (int exit, string output, string error) = await InProcessTool.RunAsync("schema", "check", "--baseline", _baseline, "-I", _protos, "--suppressions", suppressions);

        Assert.Equal(ExitCodes.Usage, exit);
        Assert.Empty(output);
        Assert.Contains("suppressions.xml is not a suppressions file", error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ACompatibleEdit_Passes()
    {
        await WriteBaseline();
        Edit(Orders, "  string reason = 2;", "  string reason = 2;\n  string note = 9;");

        (int exit, string output, string error) = await InProcessTool.RunAsync("schema", "check", "--baseline", _baseline, "--descriptor-set", DescriptorSet(), "-I", _protos);

        Assert.True(exit == 0, output + error);
    }

    [Fact]
    public async Task ASubjectsFileThatIsGone_IsAnError()
    {
        await WriteBaseline();
        File.Delete(Orders);

        (int exit, string output, _) = await InProcessTool.RunAsync("schema", "check", "--baseline", _baseline, "-I", _protos, "--output", "msvs");

        Assert.Equal(SchemaCommand.Incompatible, exit);
        Assert.Equal("shop/v1/orders.proto: error KPS0001: orders-value's file shop/v1/orders.proto is not among the .proto files checked: a schema removed from the code breaks its readers\n", output);

        // It cannot be accepted as a suppression: the check still fails.
        string suppressions = Path.Combine(_directory, "suppressions.xml");
        (int accepting, string acceptingOutput, _) = await InProcessTool.RunAsync(
            "schema", "check", "--baseline", _baseline, "-I", _protos, "--output", "msvs", "--suppressions", suppressions, "--write-suppressions");
        Assert.Equal(SchemaCommand.Incompatible, accepting);
        Assert.StartsWith("wrote 0 suppressions to " + suppressions + "\nshop/v1/orders.proto: error KPS0001: ", acceptingOutput, StringComparison.Ordinal);
    }

    [Fact]
    public async Task EachChangedWrite_IsANewVersion_SoATransitiveLevelSeesTheOldest()
    {
        await WriteBaseline("--level", "BACKWARD_TRANSITIVE");
        Edit(Orders, "  string reason = 2;\n", string.Empty); // removing a field is backward compatible
        (_, string second, _) = await WriteBaseline();
        Assert.Equal("recorded version 2 of orders-value (shop/v1/orders.proto, BACKWARD_TRANSITIVE) in orders-value.json\n", second);

        Edit(Orders, "message OrderCancelled {", "message OrderCancelled {\n  int64 reason = 2;"); // field 2 again, as another type

        (int exit, string output, _) = await InProcessTool.RunAsync("schema", "check", "--baseline", _baseline, "-I", _protos);
        Assert.Equal(SchemaCommand.Incompatible, exit);
        Assert.Contains("against version 1)", output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ASubjectsFileThatMoved_KeepsItsHistory()
    {
        await WriteBaseline();
        string moved = Path.Combine(_protos, "shop", "v2", "orders.proto");
        Directory.CreateDirectory(Path.GetDirectoryName(moved)!);
        File.Move(Orders, moved);

        (_, string output, _) = await InProcessTool.RunAsync("schema", "baseline", "write", _baseline, moved, "-I", _protos, "--topic", "orders");
        Assert.Equal("recorded version 2 (moved from shop/v1/orders.proto) of orders-value (shop/v2/orders.proto, BACKWARD) in orders-value.json\n", output);

        Edit(moved, "  string reason = 2;", "  int64 reason = 2;");
        // Both versions (the first under the file's old name) are read and checked against.
        (int exit, string check, _) = await InProcessTool.RunAsync("schema", "check", "--baseline", _baseline, "-I", _protos, "--level", "BACKWARD_TRANSITIVE");
        Assert.Equal(SchemaCommand.Incompatible, exit);
        Assert.Contains(moved + ": FIELD_SCALAR_KIND_CHANGED #/OrderCancelled/2: ", check, StringComparison.Ordinal);
    }

    [Fact]
    public async Task WithARegistry_TheSubjectsVersionsThereAreTheOnesCheckedAgainst()
    {
        using var registry = InProcessSchemaRegistry.Start();
        await WriteBaseline();
        Edit(Orders, "  string reason = 2;", "  int64 reason = 2;");
        Assert.Equal(0, (await InProcessTool.RunAsync("schema", "register", Orders, "-I", _protos, "--topic", "orders", "--schema-registry", registry.Url)).Exit);

        // Against the registry's version (already int64): compatible; against the baseline's: not.
        (int against, string output, string error) = await InProcessTool.RunAsync("schema", "check", "--baseline", _baseline, "-I", _protos, "--registry", registry.Url);
        Assert.True(against == 0, output + error);
        Assert.Equal(SchemaCommand.Incompatible, (await InProcessTool.RunAsync("schema", "check", "--baseline", _baseline, "-I", _protos)).Exit);
    }

    [Theory]
    [InlineData("--subject=orders-value", "give no schema and no --subject")]
    [InlineData("--output=yaml", "--output is text, json or msvs")]
    [InlineData("--write-suppressions", "--write-suppressions needs --suppressions FILE")]
    public async Task BadBaselineOptions_AreUsageErrors(string option, string expected)
    {
        await WriteBaseline();

        (int exit, _, string error) = await InProcessTool.RunAsync("schema", "check", "--baseline", _baseline, "-I", _protos, option);

        Assert.Equal(ExitCodes.Usage, exit);
        Assert.Contains(expected, error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AnEmptyOrBrokenBaseline_IsAUsageError()
    {
        (int empty, _, string emptyError) = await InProcessTool.RunAsync("schema", "check", "--baseline", _baseline, "-I", _protos);
        Assert.Equal(ExitCodes.Usage, empty);
        Assert.Contains("holds no subject", emptyError, StringComparison.Ordinal);

        Directory.CreateDirectory(_baseline);
        File.WriteAllText(Path.Combine(_baseline, "orders-value.json"), "{\"format\": 1}");
        (int broken, _, string brokenError) = await InProcessTool.RunAsync("schema", "check", "--baseline", _baseline, "-I", _protos);
        Assert.Equal(ExitCodes.Usage, broken);
        Assert.Contains("orders-value.json is not a schema baseline entry", brokenError, StringComparison.Ordinal);
    }

    private Task<(int Exit, string Output, string Error)> WriteBaseline(params string[] more) =>
        InProcessTool.RunAsync(["schema", "baseline", "write", _baseline, Orders, "-I", _protos, "--topic", "orders", .. more]);

    private string DescriptorSet()
    {
        string output = Path.Combine(_directory, "current-" + Guid.NewGuid().ToString("N") + ".pb");
        Protoc.WriteDescriptorSet(_protos, output, "shop/v1/orders.proto");
        return output;
    }

    private static void Edit(string path, string before, string after)
    {
        string text = File.ReadAllText(path);
        Assert.Contains(before, text, StringComparison.Ordinal);
        File.WriteAllText(path, text.Replace(before, after, StringComparison.Ordinal));
    }

    /// <summary>The line and column (from 1) where a text starts in a file, as an editor shows them.</summary>
    private static (int Line, int Column) Where(string path, string text)
    {
        string[] lines = File.ReadAllLines(path);
        int line = Array.FindIndex(lines, l => l.Contains(text, StringComparison.Ordinal));
        Assert.True(line >= 0, text + " not in " + path);
        return (line + 1, lines[line].IndexOf(text, StringComparison.Ordinal) + 1);
    }
}
