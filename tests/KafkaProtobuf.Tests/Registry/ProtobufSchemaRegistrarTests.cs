using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
using Xunit;

namespace KafkaProtobuf.Tests.Registry;

/// <summary>
/// <see cref="ProtobufSchemaRegistrar"/>: the order a file and its imports are registered in (a shared import once,
/// before its first importer; known types skipped unless asked), the references' versions, and the subject names.
/// </summary>
public sealed class ProtobufSchemaRegistrarTests : IDisposable
{
    private readonly InProcessSchemaRegistry _registry = InProcessSchemaRegistry.Start();
    private readonly RegistryClient _client;

    public ProtobufSchemaRegistrarTests() => _client = new RegistryClient(_registry.Url);

    public void Dispose()
    {
        _client.Dispose();
        _registry.Dispose();
    }

    [Fact]
    public void ADiamondOfImports_IsPlannedEachFileOnce_ImportsBeforeTheirImporters()
    {
        FileDescriptor top = Diamond();

        Assert.Equal(
            ["a/base.proto: a/base.proto", "a/left.proto: a/left.proto, references a/base.proto", "a/right.proto: a/right.proto, references a/base.proto",
             "top-value: a/top.proto, references a/left.proto, a/right.proto"],
            ProtobufSchemaRegistrar.Plan("top-value", top, null).Select(s => s.ToString()));
        Assert.Equal(
            ["a/base.proto", "a/left.proto", "a/right.proto", "google/protobuf/timestamp.proto", "top-value"],
            ProtobufSchemaRegistrar.Plan("top-value", top, new RegistrySerializerOptions { SkipKnownTypes = false }).Select(s => s.Subject));
    }

    [Fact]
    public async Task Registering_GivesEachReferenceTheVersionTheRegistryGaveItsImport()
    {
        // base.proto has a version 1 already: the new one is version 2, and the importers must reference 2.
        await _client.RegisterAsync("a/base.proto", "syntax = \"proto3\";\npackage a;\nmessage Old { int32 x = 1; }\n", "PROTOBUF", [], normalize: false);
        await _client.SetCompatibilityLevelAsync("a/base.proto", CompatibilityLevel.None);

        var answers = await new ProtobufSchemaRegistrar(_client).RegisterAsync("top-value", Diamond());

        Assert.Equal(4, answers.Count);
        Assert.Equal([2, 1, 1, 1], answers.Select(a => a.Version!.Value));
        RegistrySchema left = await _client.GetLatestVersionAsync("a/left.proto");
        Assert.Equal([new RegistryReference("a/base.proto", "a/base.proto", 2)], left.References);
        Assert.Equal(answers[3].Id, (await _client.GetLatestVersionAsync("top-value")).Id);
    }

    [Fact]
    public async Task WithAutoRegistrationOff_NothingIsRegistered_AndAMissingSchemaIsTheRegistrysNotFound()
    {
        var registrar = new ProtobufSchemaRegistrar(_client, new RegistrySerializerOptions { AutoRegisterSchemas = false });

        var e = await Assert.ThrowsAsync<SchemaRegistryRequestException>(() => registrar.RegisterAsync("top-value", Diamond()));

        Assert.True(e.IsNotFound, e.Message);
        Assert.Empty(await _client.GetSubjectsAsync());
    }

    [Fact]
    public async Task References_RegisterTheImportsOnly_AndNameTheVersionsTheFileWouldReference()
    {
        IReadOnlyList<RegistryReference> references = await new ProtobufSchemaRegistrar(_client).RegisterImportsAsync(Diamond());

        Assert.Equal([new RegistryReference("a/left.proto", "a/left.proto", 1), new RegistryReference("a/right.proto", "a/right.proto", 1)], references);
        Assert.Equal(["a/base.proto", "a/left.proto", "a/right.proto"], (await _client.GetSubjectsAsync()).Order(StringComparer.Ordinal));
    }

    [Fact]
    public void UsageErrors_AreThrownAtTheCall()
    {
        var registrar = new ProtobufSchemaRegistrar(_client);
        // Thrown by the call itself, not inside the task it would return.
        Assert.Throws<ArgumentException>(() => { _ = registrar.RegisterAsync(string.Empty, Diamond()); });
        Assert.Throws<ArgumentNullException>(() => { _ = registrar.RegisterAsync("s", null!); });
        Assert.Throws<ArgumentNullException>(() => new ProtobufSchemaRegistrar(null!));
    }

    [Theory]
    [InlineData(SubjectNaming.Topic, MessageComponentType.Value, "orders-value")]
    [InlineData(SubjectNaming.Topic, MessageComponentType.Key, "orders-key")]
    [InlineData(SubjectNaming.Record, MessageComponentType.Key, "shop.v1.OrderPlaced")]
    [InlineData(SubjectNaming.TopicRecord, MessageComponentType.Value, "orders-shop.v1.OrderPlaced")]
    public void SubjectNames_AreConfluentsStrategies(SubjectNaming naming, MessageComponentType component, string expected) =>
        Assert.Equal(expected, SubjectNames.Of(naming, "orders", component, "shop.v1.OrderPlaced"));

    [Fact]
    public void SubjectNames_RefuseAnUndefinedStrategy() =>
        Assert.Throws<ArgumentOutOfRangeException>(() => SubjectNames.Of((SubjectNaming)7, "orders", MessageComponentType.Value, "x"));

    /// <summary>top imports left and right, both import base; top also imports timestamp.proto.</summary>
    private static FileDescriptor Diamond()
    {
        FileDescriptorSet set = ProtoSource.Compile("a/top.proto", "syntax = \"proto3\";\npackage a;\nimport \"a/left.proto\";\nimport \"a/right.proto\";\nimport \"google/protobuf/timestamp.proto\";\nmessage Top { Left l = 1; Right r = 2; google.protobuf.Timestamp at = 3; }\n", name => name switch
        {
            "a/left.proto" => "syntax = \"proto3\";\npackage a;\nimport \"a/base.proto\";\nmessage Left { Base b = 1; }\n",
            "a/right.proto" => "syntax = \"proto3\";\npackage a;\nimport \"a/base.proto\";\nmessage Right { Base b = 1; }\n",
            "a/base.proto" => "syntax = \"proto3\";\npackage a;\nmessage Base { int32 x = 1; }\n",
            _ => null,
        });
        var files = FileDescriptor.BuildFromByteStrings(set.File.Select(f => f.ToByteString()));
        return files[files.Count - 1];
    }
}
