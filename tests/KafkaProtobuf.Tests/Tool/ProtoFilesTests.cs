using System;
using System.IO;
using System.Linq;
using Google.Protobuf.Reflection;
using KafkaProtobuf.Tests.Support;
using KafkaProtobuf.Tool.Schemas;
using Xunit;
using Writer = KafkaProtobuf.Tests.Shop.Writer;

namespace KafkaProtobuf.Tests.Tool;

/// <summary>
/// The tool compiles .proto files into the bytes protoc embeds in generated code, so what it registers is what a
/// serializer of the generated type looks up; a JSON name the file sets is kept.
/// </summary>
public sealed class ProtoFilesTests : IDisposable
{
    private readonly string _directory = Directory.CreateTempSubdirectory("proto-files-").FullName;

    public void Dispose() => Directory.Delete(_directory, recursive: true);

    [Theory]
    [InlineData("RegistryProtos/writer", "shop/v1/orders.proto")]
    [InlineData("RegistryProtos/writer", "shop/v1/common.proto")]
    [InlineData("ToolProtos", "tool/v1/everything.proto")]
    public void AFileUnderAnImportRoot_CompilesToTheBytesOfItsGeneratedCode(string root, string name)
    {
        string folder = Path.Combine(RepositoryRoot.Path, "tests", "KafkaProtobuf.Tests", root);

        FileDescriptor compiled = Assert.Single(ProtoFiles.Compile([Path.Combine(folder, name)], [folder]));

        Assert.Equal(name, compiled.Name);
        FileDescriptor generated = name switch
        {
            "shop/v1/orders.proto" => Writer.OrdersReflection.Descriptor,
            "shop/v1/common.proto" => Writer.CommonReflection.Descriptor,
            _ => KafkaProtobuf.Tests.ToolTypes.EverythingReflection.Descriptor,
        };
        Assert.Equal(generated.SerializedData, compiled.SerializedData);
    }

    [Fact]
    public void FilesTakenFromProtocsDescriptorSet_AreTheBytesOfTheirGeneratedCode()
    {
        string folder = Path.Combine(RepositoryRoot.Path, "tests", "KafkaProtobuf.Tests", "RegistryProtos", "writer");
        string set = Path.Combine(_directory, "writer.pb");
        KafkaProtobuf.Tests.Registry.Protoc.WriteDescriptorSet(folder, set, "shop/v1/orders.proto"); // with source positions and every JSON name

        FileDescriptor orders = Assert.Single(ProtoFiles.Load([Path.Combine(folder, "shop", "v1", "orders.proto")], [folder], [set]));

        Assert.Equal(Writer.OrdersReflection.Descriptor.SerializedData, orders.SerializedData);
        Assert.Equal(Writer.CommonReflection.Descriptor.SerializedData, orders.Dependencies.Single(d => d.Name == "shop/v1/common.proto").SerializedData);
    }

    [Fact]
    public void AJsonNameTheFileSets_IsKept_AndTheDefaultOnesAreNot()
    {
        string path = Path.Combine(_directory, "order.proto");
        File.WriteAllText(path, "syntax = \"proto3\";\nmessage Order { int32 order_id = 1 [json_name = \"id\"]; int32 line_count = 2; }\n");

        FileDescriptor compiled = Assert.Single(ProtoFiles.Compile([path], []));

        FileDescriptorProto proto = FileDescriptorProto.Parser.ParseFrom(compiled.SerializedData);
        Assert.Equal("order.proto", proto.Name);
        Assert.Equal("id", proto.MessageType[0].Field[0].JsonName);
        Assert.False(proto.MessageType[0].Field[1].HasJsonName);
        Assert.Null(proto.SourceCodeInfo);
    }

    [Fact]
    public void AFileUnderNoRoot_IsNamedByItsFileName_AndItsImportsAreFoundBesideIt()
    {
        File.WriteAllText(Path.Combine(_directory, "money.proto"), "syntax = \"proto3\";\nmessage Money { int64 units = 1; }\n");
        string path = Path.Combine(_directory, "order.proto");
        File.WriteAllText(path, "syntax = \"proto3\";\nimport \"money.proto\";\nmessage Order { Money total = 1; }\n");

        FileDescriptor compiled = Assert.Single(ProtoFiles.Compile([path], []));

        Assert.Equal("order.proto", compiled.Name);
        Assert.Equal("money.proto", Assert.Single(compiled.Dependencies).Name);
    }
}
