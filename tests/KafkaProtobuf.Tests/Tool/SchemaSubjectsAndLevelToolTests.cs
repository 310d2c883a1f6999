using System;
using System.Linq;
using System.Text.Json;
using System.Threading.Tasks;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tool.Commands;
using Xunit;

namespace KafkaProtobuf.Tests.Tool;

/// <summary><c>kafka-protobuf schema subjects</c> and <c>schema set-compatibility</c> against the in-process registry over HTTP.</summary>
public sealed class SchemaSubjectsAndLevelToolTests : IDisposable
{
    private const string Schema = "syntax = \"proto3\";\nmessage Order { int32 quantity = 1; }\n";

    private readonly InProcessSchemaRegistry _registry = InProcessSchemaRegistry.Start();
    private readonly RegistryClient _client;

    public SchemaSubjectsAndLevelToolTests() => _client = new RegistryClient(_registry.Url);

    public void Dispose()
    {
        _client.Dispose();
        _registry.Dispose();
    }

    [Fact]
    public async Task Subjects_AreListedOnePerLine_OrAsJson_FilteredByAWholeNamePattern()
    {
        foreach (string subject in new[] { "orders-value", "orders-key", "shop/v1/common.proto", "payments-value" })
        {
            await _client.RegisterAsync(subject, Schema, "PROTOBUF", [], normalize: false);
        }

        (int exit, string text, string error) = await InProcessTool.RunAsync("schema", "subjects", "--schema-registry", _registry.Url);
        Assert.True(exit == 0, error);
        Assert.Equal(["orders-key", "orders-value", "payments-value", "shop/v1/common.proto"], text.Split('\n', StringSplitOptions.RemoveEmptyEntries).Order(StringComparer.Ordinal));

        (int jsonExit, string json, _) = await InProcessTool.RunAsync("schema", "subjects", "--subject-pattern", "orders-.*|value", "--output", "json", "--schema-registry", _registry.Url);
        Assert.Equal(0, jsonExit);
        using JsonDocument document = JsonDocument.Parse(json);
        Assert.Equal(1, document.RootElement.GetProperty("format").GetInt32());
        Assert.Equal(["orders-key", "orders-value"], document.RootElement.GetProperty("subjects").EnumerateArray().Select(s => s.GetString()).Order(StringComparer.Ordinal));
    }

    [Fact]
    public async Task APatternThatBacktracksWithoutEndOnASubject_IsStoppedAndSaidSo()
    {
        await _client.RegisterAsync(new string('a', 40) + "!", Schema, "PROTOBUF", [], normalize: false);

        (int exit, string output, string error) = await InProcessTool.RunAsync("schema", "subjects", "--subject-pattern", @"(\w+\s?)*", "--schema-registry", _registry.Url);

        Assert.Equal(ExitCodes.Usage, exit);
        Assert.Empty(output);
        Assert.Contains("--subject-pattern took longer than 1 s on a subject", error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ASubjectsLevel_IsSet_ThenRemoved_AndTheGlobalLevelIsSet()
    {
        (int set, string setOutput, string error) = await InProcessTool.RunAsync("schema", "set-compatibility", "--subject", "orders-value", "--level", "full_transitive", "--schema-registry", _registry.Url);
        Assert.True(set == 0, error);
        Assert.Equal("orders-value: FULL_TRANSITIVE\n", setOutput);
        Assert.Equal(CompatibilityLevel.FullTransitive, await _client.GetCompatibilityLevelAsync("orders-value"));

        (int global, string globalOutput, _) = await InProcessTool.RunAsync("schema", "set-compatibility", "--global", "--level", "FORWARD", "--schema-registry", _registry.Url);
        Assert.Equal(0, global);
        Assert.Equal("global: FORWARD\n", globalOutput);
        Assert.Equal(CompatibilityLevel.Forward, await _client.GetGlobalCompatibilityLevelAsync());
        Assert.Equal(CompatibilityLevel.FullTransitive, await _client.GetCompatibilityLevelAsync("orders-value"));

        (int removed, string removedOutput, _) = await InProcessTool.RunAsync("schema", "set-compatibility", "--subject", "orders-value", "--remove", "--schema-registry", _registry.Url);
        Assert.Equal(0, removed);
        Assert.Equal("orders-value: own level removed; checked at the global level, FORWARD\n", removedOutput);
        Assert.Equal(CompatibilityLevel.Forward, await _client.GetCompatibilityLevelAsync("orders-value"));
    }

    [Fact]
    public async Task RemovingALevelASubjectDoesNotHave_IsTheRegistrysRefusal_ExitCode3()
    {
        (int exit, _, string error) = await InProcessTool.RunAsync("schema", "set-compatibility", "--subject", "orders-value", "--remove", "--schema-registry", _registry.Url);

        Assert.Equal(ExitCodes.ConnectionFailure, exit);
        Assert.Contains("40401", error, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("--level=FULL", "give --subject or --global")]
    [InlineData("--subject=s --global --level=FULL", "give --subject or --global")]
    [InlineData("--subject=s", "give --level or --remove")]
    [InlineData("--subject=s --level=FULL --remove", "give --level or --remove")]
    [InlineData("--global --remove", "--remove goes with --subject")]
    [InlineData("--subject=s --level=SIDEWAYS", "--level is one of NONE, BACKWARD")]
    public async Task ConflictingOrMissingOptions_AreUsageErrors(string options, string expected)
    {
        (int exit, _, string error) = await InProcessTool.RunAsync(["schema", "set-compatibility", "--schema-registry", _registry.Url, .. options.Split(' ')]);

        Assert.Equal(ExitCodes.Usage, exit);
        Assert.Contains(expected, error, StringComparison.Ordinal);
        Assert.Equal(CompatibilityLevel.Backward, await _client.GetGlobalCompatibilityLevelAsync());
    }

    [Fact]
    public async Task WithoutARegistry_EachCommandIsAUsageError()
    {
        Assert.Equal(ExitCodes.Usage, (await InProcessTool.RunAsync("schema", "subjects")).Exit);
        Assert.Equal(ExitCodes.Usage, (await InProcessTool.RunAsync("schema", "set-compatibility", "--global", "--level", "FULL")).Exit);
        Assert.Equal(ExitCodes.Usage, (await InProcessTool.RunAsync("schema", "download", "--subject", "s", "-o", "x")).Exit);
        (int exit, _, string error) = await InProcessTool.RunAsync("schema", "register", "x.proto", "--subject", "s");
        Assert.Equal(ExitCodes.Usage, exit);
        Assert.Contains("--schema-registry is required (or --dry-run)", error, StringComparison.Ordinal);
    }
}
