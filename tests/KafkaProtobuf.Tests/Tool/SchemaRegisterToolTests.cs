using System;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tests.Support;
using KafkaProtobuf.Tool.Commands;
using Xunit;
using Writer = KafkaProtobuf.Tests.Shop.Writer;

namespace KafkaProtobuf.Tests.Tool;

/// <summary>
/// <c>kafka-protobuf schema register</c> against the in-process registry over HTTP: imports found from the files and
/// registered first, what a producer's serializer with auto-registration off then finds, the naming strategies, a
/// second run, the dry run, and each way it fails.
/// </summary>
public sealed class SchemaRegisterToolTests : IDisposable
{
    private static readonly string WriterRoot = Path.Combine(RepositoryRoot.Path, "tests", "KafkaProtobuf.Tests", "RegistryProtos", "writer");
    private static readonly string Orders = Path.Combine(WriterRoot, "shop", "v1", "orders.proto");

    private readonly InProcessSchemaRegistry _registry = InProcessSchemaRegistry.Start();
    private readonly RegistryClient _client;
    private readonly string _directory = Directory.CreateTempSubdirectory("schema-register-").FullName;

    public SchemaRegisterToolTests() => _client = new RegistryClient(_registry.Url);

    public void Dispose()
    {
        _client.Dispose();
        _registry.Dispose();
        Directory.Delete(_directory, recursive: true);
    }

    [Fact]
    public async Task AFileWithImports_IsRegisteredImportsFirst_AndAProducerWithAutoRegistrationOffFindsItsId()
    {
        (int exit, string output, string error) = await InProcessTool.RunAsync(
            "schema", "register", Orders, "--proto-path", WriterRoot, "--topic", "orders", "--schema-registry", _registry.Url);

        Assert.True(exit == 0, error);
        string[] lines = output.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal(2, lines.Length);
        Assert.StartsWith("registered shop/v1/common.proto under shop/v1/common.proto: id ", lines[0], StringComparison.Ordinal);
        Assert.StartsWith("registered shop/v1/orders.proto under orders-value: id ", lines[1], StringComparison.Ordinal);
        Assert.EndsWith(", version 1 (references shop/v1/common.proto)", lines[1], StringComparison.Ordinal);

        // The well-known import is left out, as Confluent's serializers leave it out.
        Assert.Equal(["orders-value", "shop/v1/common.proto"], (await _client.GetSubjectsAsync()).Order(StringComparer.Ordinal));

        var serializer = new RegistryProtobufSerializer<Writer.OrderPlaced>(_client, new RegistrySerializerOptions { AutoRegisterSchemas = false });
        SchemaIdentifier id = await serializer.WarmUpAsync("orders", MessageComponentType.Value);
        Assert.Equal((await _client.GetLatestVersionAsync("orders-value")).Id, id.Id);
        Assert.Contains("id " + id.Id + ",", lines[1], StringComparison.Ordinal);
    }

    [Fact]
    public async Task FilesFromProtocsDescriptorSet_AreRegisteredAsCompiledFiles_AndTheProducerFindsThem()
    {
        string set = Path.Combine(_directory, "writer.pb");
        KafkaProtobuf.Tests.Registry.Protoc.WriteDescriptorSet(WriterRoot, set, "shop/v1/orders.proto");

        (int exit, string output, string error) = await InProcessTool.RunAsync(
            "schema", "register", Orders, "-I", WriterRoot, "--descriptor-set", set, "--topic", "orders", "--schema-registry", _registry.Url);

        Assert.True(exit == 0, error);
        Assert.Contains("registered shop/v1/orders.proto under orders-value: id ", output, StringComparison.Ordinal);
        SchemaIdentifier id = await new RegistryProtobufSerializer<Writer.OrderPlaced>(_client, new RegistrySerializerOptions { AutoRegisterSchemas = false })
            .WarmUpAsync("orders", MessageComponentType.Value);
        Assert.Equal((await _client.GetLatestVersionAsync("orders-value")).Id, id.Id);

        (int missing, _, string missingError) = await InProcessTool.RunAsync(
            "schema", "register", Path.Combine(WriterRoot, "shop", "v1", "nothing.proto"), "-I", WriterRoot, "--descriptor-set", set, "--subject", "s", "--schema-registry", _registry.Url);
        Assert.Equal(ExitCodes.Usage, missing);
        Assert.Contains("the descriptor sets hold no file named shop/v1/nothing.proto", missingError, StringComparison.Ordinal);
    }

    [Fact]
    public async Task RegisteringTheSameFilesAgain_CreatesNoNewVersion()
    {
        string[] args = ["schema", "register", Orders, "-I", WriterRoot, "--topic", "orders", "--schema-registry", _registry.Url];
        (int first, string firstOutput, _) = await InProcessTool.RunAsync(args);
        (int second, string secondOutput, string error) = await InProcessTool.RunAsync(args);

        Assert.Equal(0, first);
        Assert.True(second == 0, error);
        Assert.Equal(firstOutput, secondOutput);
        Assert.Equal([1], await _client.GetVersionsAsync("orders-value"));
        Assert.Equal([1], await _client.GetVersionsAsync("shop/v1/common.proto"));
    }

    [Fact]
    public async Task TopicRecordNaming_RegistersUnderEachTypesSubject_AsTheSerializerNamesIt()
    {
        (int exit, string output, string error) = await InProcessTool.RunAsync(
            "schema", "register", Orders, "-I", WriterRoot, "--topic", "orders", "--naming", "topic-record",
            "--type", "shop.v1.OrderShipped.Carrier", "--type", "shop.v1.OrderCancelled", "--schema-registry", _registry.Url);

        Assert.True(exit == 0, error);
        Assert.Contains("under orders-shop.v1.OrderShipped.Carrier: id ", output, StringComparison.Ordinal);
        var options = new RegistrySerializerOptions { AutoRegisterSchemas = false, SubjectNaming = SubjectNaming.TopicRecord };
        SchemaIdentifier carrier = await new RegistryProtobufSerializer<Writer.OrderShipped.Types.Carrier>(_client, options).WarmUpAsync("orders", MessageComponentType.Value);
        SchemaIdentifier cancelled = await new RegistryProtobufSerializer<Writer.OrderCancelled>(_client, options).WarmUpAsync("orders", MessageComponentType.Value);
        Assert.Equal(carrier, cancelled); // one file: one schema, under two subjects
        Assert.DoesNotContain("orders-shop.v1.OrderPlaced", await _client.GetSubjectsAsync());
    }

    [Fact]
    public async Task TheKeyFlag_RegistersUnderTheTopicsKeySubject()
    {
        (int exit, _, string error) = await InProcessTool.RunAsync(
            "schema", "register", Path.Combine(WriterRoot, "shop", "v1", "common.proto"), "-I", WriterRoot, "--topic", "orders", "--key", "--schema-registry", _registry.Url);

        Assert.True(exit == 0, error);
        SchemaIdentifier id = await new RegistryProtobufSerializer<Writer.OrderKey>(_client, new RegistrySerializerOptions { AutoRegisterSchemas = false })
            .WarmUpAsync("orders", MessageComponentType.Key);
        Assert.Equal((await _client.GetLatestVersionAsync("orders-key")).Id, id.Id);
    }

    [Fact]
    public async Task ADryRun_PrintsWhatWouldBeRegistered_AndAsksTheRegistryNothing()
    {
        (int exit, string output, string error) = await InProcessTool.RunAsync(
            "schema", "register", Orders, "-I", WriterRoot, "--subject", "orders-value", "--dry-run", "--schema-registry", _registry.Url);

        Assert.True(exit == 0, error);
        Assert.Equal(
            "would register shop/v1/common.proto under shop/v1/common.proto\n"
            + "would register shop/v1/orders.proto under orders-value (references shop/v1/common.proto)\n",
            output);
        Assert.Empty(await _client.GetSubjectsAsync());
    }

    [Fact]
    public async Task AnIncompatibleChange_IsRefusedByTheRegistry_ExitCode1_AndTheSubjectKeepsItsVersion()
    {
        string v1 = Write("order.proto", "syntax = \"proto3\";\npackage shop;\nmessage Order { int32 quantity = 1; }\n");
        Assert.Equal(0, (await InProcessTool.RunAsync("schema", "register", v1, "--subject", "orders-value", "--schema-registry", _registry.Url)).Exit);
        string v2 = Write("order.proto", "syntax = \"proto3\";\npackage shop;\nmessage Order { string quantity = 1; }\n");

        (int exit, string output, string error) = await InProcessTool.RunAsync("schema", "register", v2, "--subject", "orders-value", "--schema-registry", _registry.Url);

        Assert.Equal(SchemaCommand.Incompatible, exit);
        Assert.Empty(output);
        Assert.StartsWith("kafka-protobuf schema register: the registry refused the schema: ", error, StringComparison.Ordinal);
        Assert.Equal([1], await _client.GetVersionsAsync("orders-value"));
    }

    [Theory]
    [InlineData("--subject=s --topic=t", "give --subject or --topic")]
    [InlineData("", "give --subject or --topic")]
    [InlineData("--subject=s --key", "--key, --naming and --type go with --topic")]
    [InlineData("--topic=t --type=shop.v1.OrderPlaced", "--type goes with --naming record or topic-record")]
    [InlineData("--topic=t --naming=record --type=shop.v1.Nothing", "no file given declares the message 'shop.v1.Nothing'")]
    public async Task ConflictingOrMissingOptions_AreUsageErrors(string options, string expected)
    {
        string[] args = ["schema", "register", Orders, "-I", WriterRoot, "--schema-registry", _registry.Url, .. options.Split(' ', StringSplitOptions.RemoveEmptyEntries)];

        (int exit, string output, string error) = await InProcessTool.RunAsync(args);

        Assert.Equal(ExitCodes.Usage, exit);
        Assert.Empty(output);
        Assert.Contains(expected, error, StringComparison.Ordinal);
        Assert.Empty(await _client.GetSubjectsAsync());
    }

    [Fact]
    public async Task TwoFilesUnderOneSubject_IsAUsageError()
    {
        (int exit, _, string error) = await InProcessTool.RunAsync(
            "schema", "register", Orders, Path.Combine(WriterRoot, "shop", "v1", "common.proto"), "-I", WriterRoot, "--topic", "orders", "--schema-registry", _registry.Url);

        Assert.Equal(ExitCodes.Usage, exit);
        Assert.Contains("one subject takes one file", error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AFileThatDoesNotCompile_IsAUsageError_WithItsLineAndColumn_AndNothingIsRegistered()
    {
        string bad = Write("bad.proto", "syntax = \"proto3\";\nmessage Order {\n  int32 quantity = one;\n}\n");

        (int exit, _, string error) = await InProcessTool.RunAsync("schema", "register", bad, "--subject", "s", "--schema-registry", _registry.Url);

        Assert.Equal(ExitCodes.Usage, exit);
        Assert.StartsWith("kafka-protobuf schema register: bad.proto:3:20: ", error, StringComparison.Ordinal);
        Assert.Empty(await _client.GetSubjectsAsync());
    }

    [Fact]
    public async Task ARegistryThatCannotBeReached_IsExitCode3()
    {
        string url = _registry.Url;
        _registry.Dispose();

        (int exit, _, string error) = await InProcessTool.RunAsync("schema", "register", Orders, "-I", WriterRoot, "--subject", "s", "--schema-registry", url);

        Assert.Equal(ExitCodes.ConnectionFailure, exit);
        Assert.StartsWith("kafka-protobuf schema register: the registry could not be asked: ", error, StringComparison.Ordinal);
    }

    private string Write(string name, string text)
    {
        string path = Path.Combine(_directory, name);
        File.WriteAllText(path, text);
        return path;
    }
}
