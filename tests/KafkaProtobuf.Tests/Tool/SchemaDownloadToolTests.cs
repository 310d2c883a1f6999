using System;
using System.IO;
using System.Linq;
using System.Text.Json;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf.Reflection;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tests.Registry;
using KafkaProtobuf.Tests.Support;
using KafkaProtobuf.Tool.Commands;
using Xunit;
using Writer = KafkaProtobuf.Tests.Shop.Writer;

namespace KafkaProtobuf.Tests.Tool;

/// <summary>
/// <c>kafka-protobuf schema download</c>: what a producer registered comes back as a folder protoc compiles as it is,
/// each reference at its import path, describing the very messages the producer's generated classes were made from; a
/// registry's paths are untrusted.
/// </summary>
public sealed class SchemaDownloadToolTests : IDisposable
{
    private readonly InProcessSchemaRegistry _registry = InProcessSchemaRegistry.Start();
    private readonly RegistryClient _client;
    private readonly string _directory = Directory.CreateTempSubdirectory("schema-download-").FullName;

    public SchemaDownloadToolTests() => _client = new RegistryClient(_registry.Url);

    public void Dispose()
    {
        _client.Dispose();
        _registry.Dispose();
        Directory.Delete(_directory, recursive: true);
    }

    [Fact]
    public async Task WhatAProducerRegistered_IsWrittenAtItsImportPaths_AndTheFolderCompilesToTheProducersMessages()
    {
        var serializer = new RegistryProtobufSerializer<Writer.OrderPlaced>(_client);
        var placed = new Writer.OrderPlaced { OrderId = "o-1", Total = new Writer.Money { Currency = "EUR", Units = 12 }, Lines = { new Writer.OrderPlaced.Types.Line { Sku = "s", Quantity = 3 } } };
        var context = new SerializationContext(MessageComponentType.Value, "orders");
        byte[] record = (await serializer.SerializeAsync(placed, context))!;

        (int exit, string output, string error) = await InProcessTool.RunAsync(
            "schema", "download", "--subject", "orders-value", "--output", _directory, "--schema-registry", _registry.Url);

        Assert.True(exit == 0, error);
        Assert.Equal("wrote orders-value.proto (orders-value v1)\nwrote shop/v1/common.proto (shop/v1/common.proto v1)\n", output);
        FileDescriptorSet compiled = Protoc.CompileIn(_directory, "orders-value.proto");
        FileDescriptorProto orders = compiled.File.Single(f => f.Name == "orders-value.proto");
        FileDescriptorProto common = compiled.File.Single(f => f.Name == "shop/v1/common.proto");
        AssertSameMessages(Writer.OrdersReflection.Descriptor, orders);
        AssertSameMessages(Writer.CommonReflection.Descriptor, common);
        Assert.Equal(["google/protobuf/timestamp.proto", "shop/v1/common.proto"], orders.Dependency.Order(StringComparer.Ordinal));

        // The producer's record, read with the downloaded folder's schema alone, is the producer's message.
        var built = FileDescriptor.BuildFromByteStrings(compiled.File.Select(f => Google.Protobuf.MessageExtensions.ToByteString(f)));
        var decoder = new KafkaProtobuf.Decoding.WriterSchemaDecoder(new KafkaProtobuf.Decoding.SingleFileSchemaSource(built.Single(f => f.Name == "orders-value.proto")));
        KafkaProtobuf.Decoding.DecodedPart part = await decoder.DecodeAsync(record, context);
        Assert.False(part.IsBad, part.ErrorMessage);
        Assert.Equal("shop.v1.OrderPlaced", part.WriterType!.FullName);
        Assert.Equal(placed, Google.Protobuf.JsonParser.Default.Parse<Writer.OrderPlaced>(part.Json));
    }

    [Fact]
    public async Task ASubjectPattern_DownloadsEveryMatchingSubject_AtTheVersionAsked()
    {
        await new RegistryProtobufSerializer<Writer.OrderPlaced>(_client).WarmUpAsync("orders", MessageComponentType.Value);
        await new RegistryProtobufSerializer<Writer.OrderKey>(_client).WarmUpAsync("orders", MessageComponentType.Key);
        await new RegistryProtobufSerializer<Writer.OrderKey>(_client).WarmUpAsync("payments", MessageComponentType.Key);

        (int exit, string output, string error) = await InProcessTool.RunAsync(
            "schema", "download", "--subject-pattern", "orders-.*", "--version", "1", "-o", _directory, "--schema-registry", _registry.Url);

        // orders-key holds common.proto itself, which orders-value imports: one file, at its import path, holds both.
        Assert.True(exit == 0, error);
        Assert.Equal(
            "wrote orders-value.proto (orders-value v1)\nwrote shop/v1/common.proto (orders-key v1; shop/v1/common.proto v1)\n",
            output);
        Assert.False(File.Exists(Path.Combine(_directory, "payments-key.proto")));
        Assert.Contains(Protoc.CompileIn(_directory, "orders-value.proto").File, f => f.Name == "shop/v1/common.proto");
    }

    [Fact]
    public async Task AReferenceNameThatWouldLeaveTheFolder_StopsTheDownload_WithNothingWritten()
    {
        using var registry = new ScriptedRegistry();
        FileDescriptorProto outside = Protoc.Compile("x.proto", ("x.proto", "syntax = \"proto3\";\nmessage X { int32 a = 1; }\n"));
        registry.Version("orders-value", 1, outside, ("../../outside.proto", "x", 1));
        registry.Json("/subjects/orders-value/versions/latest", 200, JsonSerializer.Serialize(new
        {
            subject = "orders-value",
            version = 1,
            schemaType = "PROTOBUF",
            schema = "syntax = \"proto3\";\nimport \"../../outside.proto\";\nmessage Order { X x = 1; }\n",
            references = new[] { new { name = "../../outside.proto", subject = "x", version = 1 } },
        }));
        registry.Version("x", 1, outside);
        string target = Path.Combine(_directory, "a", "b");

        (int exit, string output, string error) = await InProcessTool.RunAsync(
            "schema", "download", "--subject", "orders-value", "-o", target, "--schema-registry", registry.Url);

        Assert.Equal(ExitCodes.Usage, exit);
        Assert.Empty(output);
        Assert.Contains("names a file '../../outside.proto' (x v1) that cannot be written below the output folder", error, StringComparison.Ordinal);
        Assert.False(Directory.Exists(target));
        Assert.False(File.Exists(Path.Combine(_directory, "outside.proto")));
    }

    [Fact]
    public async Task OneImportPathAtTwoVersions_IsRefused_AsTheFolderCouldHoldOnlyOne()
    {
        await _client.RegisterAsync("common.proto", "syntax = \"proto3\";\nmessage Money { int64 units = 1; }\n", "PROTOBUF", [], normalize: false);
        await _client.RegisterAsync("common.proto", "syntax = \"proto3\";\nmessage Money { int64 units = 1; string currency = 2; }\n", "PROTOBUF", [], normalize: false);
        const string Order = "syntax = \"proto3\";\nimport \"common.proto\";\nmessage {0} {{ Money total = 1; }}\n";
        await _client.RegisterAsync("a-value", string.Format(System.Globalization.CultureInfo.InvariantCulture, Order, "A"), "PROTOBUF", [new RegistryReference("common.proto", "common.proto", 1)], normalize: false);
        await _client.RegisterAsync("b-value", string.Format(System.Globalization.CultureInfo.InvariantCulture, Order, "B"), "PROTOBUF", [new RegistryReference("common.proto", "common.proto", 2)], normalize: false);

        (int exit, _, string error) = await InProcessTool.RunAsync(
            "schema", "download", "--subject", "a-value", "--subject", "b-value", "-o", _directory, "--schema-registry", _registry.Url);

        Assert.Equal(ExitCodes.Usage, exit);
        Assert.Contains("two schemas would be written to common.proto (common.proto v1 and common.proto v2)", error, StringComparison.Ordinal);
        Assert.Empty(Directory.EnumerateFileSystemEntries(_directory));
    }

    [Theory]
    [InlineData("--subject=x --subject-pattern=x", "give --subject or --subject-pattern")]
    [InlineData("--subject-pattern=(", "--subject-pattern is not a regular expression")]
    [InlineData("--subject=x --version=0", "--version starts at 1")]
    [InlineData("--subject-pattern=nothing.*", "no subject matches nothing.*")]
    public async Task BadOptions_AreUsageErrors(string options, string expected)
    {
        (int exit, _, string error) = await InProcessTool.RunAsync(
            ["schema", "download", "-o", _directory, "--schema-registry", _registry.Url, .. options.Split(' ')]);

        Assert.Equal(ExitCodes.Usage, exit);
        Assert.Contains(expected, error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AMissingSubject_IsTheRegistrysRefusal_ExitCode3()
    {
        (int exit, _, string error) = await InProcessTool.RunAsync(
            "schema", "download", "--subject", "nothing-value", "-o", _directory, "--schema-registry", _registry.Url);

        Assert.Equal(ExitCodes.ConnectionFailure, exit);
        Assert.Contains("40401", error, StringComparison.Ordinal);
    }

    /// <summary>The same messages, field for field (protoc's descriptor sets name every field's JSON name; generated code only those a file sets).</summary>
    private static void AssertSameMessages(FileDescriptor generated, FileDescriptorProto compiled)
    {
        FileDescriptorProto expected = FileDescriptorProto.Parser.ParseFrom(generated.SerializedData);
        Assert.Equal(expected.Package, compiled.Package);
        Assert.Equal(expected.Options, compiled.Options);
        Assert.Equal(expected.MessageType.Select(Plain), compiled.MessageType.Select(Plain));
        Assert.Equal(expected.EnumType, compiled.EnumType);
    }

    private static DescriptorProto Plain(DescriptorProto message)
    {
        DescriptorProto copy = message.Clone();
        foreach (FieldDescriptorProto field in copy.Field)
        {
            field.ClearJsonName();
        }

        for (int i = 0; i < copy.NestedType.Count; i++)
        {
            copy.NestedType[i] = Plain(copy.NestedType[i]);
        }

        return copy;
    }
}
