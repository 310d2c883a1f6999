extern alias ProtobufNet;

using System;
using System.IO;
using System.Linq;
using Google.Protobuf.Reflection;
using KafkaProtobuf.SchemaRegistry;
using NetDescriptors = ProtobufNet::Google.Protobuf.Reflection;

namespace KafkaProtobuf.Tests.Registry.Compatibility;

/// <summary>.proto text compiled into descriptors (by protobuf-net's parser, what Confluent's .NET serdes use), for the compatibility tests.</summary>
internal static class ProtoFiles
{
    /// <summary>The last file is the schema; the others are what it imports.</summary>
    public static ProtoSchema Schema(params (string Name, string Text)[] files) => ProtoSchema.Of(Set(files));

    /// <summary>One file named <c>schema.proto</c>, proto3 unless its text says otherwise, in package <c>test</c> unless it says one.</summary>
    public static ProtoSchema Schema(string body) => Schema(("schema.proto", WithHeader(body)));

    public static string WithHeader(string body) =>
        (body.Contains("syntax", StringComparison.Ordinal) ? string.Empty : "syntax = \"proto3\";\n")
        + (body.Contains("package ", StringComparison.Ordinal) ? string.Empty : "package test;\n")
        + body;

    public static FileDescriptorSet Set(params (string Name, string Text)[] files)
    {
        var set = new NetDescriptors.FileDescriptorSet();
        foreach ((string name, string text) in files)
        {
            set.Add(name, true, new StringReader(text));
        }

        set.Process();
        var errors = set.GetErrors().Where(e => e.IsError).ToArray();
        if (errors.Length > 0)
        {
            throw new ArgumentException("The test's .proto text does not compile: " + string.Join("; ", errors.Select(e => e.ToString())));
        }

        using var bytes = new MemoryStream();
        ProtobufNet::ProtoBuf.Serializer.Serialize(bytes, set);
        return FileDescriptorSet.Parser.ParseFrom(bytes.ToArray());
    }
}
