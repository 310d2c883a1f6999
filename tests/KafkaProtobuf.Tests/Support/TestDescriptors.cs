using Google.Protobuf.Reflection;
using Type = Google.Protobuf.Reflection.FieldDescriptorProto.Types.Type;

namespace KafkaProtobuf.Tests.Support;

/// <summary>.proto files written as descriptors, for the schemas a scripted registry serves (broken ones among them).</summary>
public static class TestDescriptors
{
    /// <summary>A file of the telemetry package with one message, importing <paramref name="imports"/>.</summary>
    public static FileDescriptorProto File(string name, DescriptorProto message, params string[] imports)
    {
        var file = new FileDescriptorProto { Name = name, Package = "vectors.telemetry.v1", Syntax = "proto3", MessageType = { message } };
        file.Dependency.AddRange(imports);
        return file;
    }

    public static DescriptorProto Message(string name, params FieldDescriptorProto[] fields) => new() { Name = name, Field = { fields } };

    /// <summary>An optional field; <paramref name="typeName"/> for a message or enum (which the file may not define: a descriptor that does not build).</summary>
    public static FieldDescriptorProto Field(string name, int number, Type type, string? typeName = null)
    {
        var field = new FieldDescriptorProto { Name = name, Number = number, Type = type, Label = FieldDescriptorProto.Types.Label.Optional };
        if (typeName is not null)
        {
            field.TypeName = typeName;
        }

        return field;
    }
}
