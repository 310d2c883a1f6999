using System;
using System.Linq;
using Google.Protobuf.Reflection;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;

namespace KafkaProtobuf.Tests.Registry.Compatibility;

/// <summary>.proto text compiled into descriptors (by <see cref="ProtoSource"/>: protobuf-net's parser, what Confluent's .NET serdes use), for the compatibility tests.</summary>
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
        (string name, string text) = files[files.Length - 1];
        return ProtoSource.Compile(name, text, import => files.Where(f => f.Name == import).Select(f => f.Text).FirstOrDefault());
    }
}
