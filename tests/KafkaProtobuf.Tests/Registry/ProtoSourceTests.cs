using System;
using System.Collections.Generic;
using System.Linq;
using Google.Protobuf.Reflection;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
using Xunit;

namespace KafkaProtobuf.Tests.Registry;

/// <summary>
/// .proto text compiled by <see cref="ProtoSource"/> (protobuf-net.Reflection, what Confluent's .NET serdes use): the
/// same types as protoc compiles, errors with file, line and column, imports read through the callback, and text nested
/// past <see cref="ProtoSource.MaxNesting"/> refused before the parser descends into it.
/// </summary>
public class ProtoSourceTests
{
    public static TheoryData<string> Files() => ProtoTextTests.Files();

    [Theory]
    [MemberData(nameof(Files))]
    public void PrintedText_CompilesToTheTypesProtocCompiles(string name)
    {
        FileDescriptorProto original = FileDescriptorProto.Parser.ParseFrom(ProtoTextTests.Generated(name).SerializedData);
        string text = ProtoText.Print(original);

        FileDescriptorSet compiled = ProtoSource.Compile(name, text);

        FileDescriptorProto file = compiled.File[^1];
        Assert.Equal(name, file.Name);
        Assert.Equal(Shape(Protoc.Compile(name, (name, text))), Shape(file));
        Assert.Empty(ProtobufCompatibility.Compare(ProtoSchema.Of(ProtoTextTests.Generated(name)), ProtoSchema.Of(compiled)));
    }

    /// <summary>Every type, field (name, number, label, type, type name, oneof, proto3 optional) and enum constant, in order.</summary>
    private static List<string> Shape(FileDescriptorProto file)
    {
        var lines = new List<string> { "package " + file.Package, "syntax " + file.Syntax, "imports " + string.Join(",", file.Dependency) };
        foreach (DescriptorProto message in file.MessageType)
        {
            Message(message, file.Package);
        }

        foreach (EnumDescriptorProto e in file.EnumType)
        {
            lines.Add("enum " + e.Name + " " + string.Join(",", e.Value.Select(v => v.Name + "=" + v.Number)));
        }

        return lines;

        void Message(DescriptorProto message, string scope)
        {
            lines.Add("message " + scope + "." + message.Name + " oneofs " + string.Join(",", message.OneofDecl.Select(o => o.Name)));
            foreach (FieldDescriptorProto f in message.Field)
            {
                lines.Add($"  {f.Name}={f.Number} {f.Label} {f.Type} {f.TypeName} oneof:{(f.HasOneofIndex ? f.OneofIndex : -1)} optional:{f.Proto3Optional} default:{f.DefaultValue}");
            }

            foreach (EnumDescriptorProto e in message.EnumType)
            {
                lines.Add("  enum " + e.Name + " " + string.Join(",", e.Value.Select(v => v.Name + "=" + v.Number)));
            }

            foreach (DescriptorProto nested in message.NestedType)
            {
                Message(nested, scope + "." + message.Name);
            }
        }
    }

    [Fact]
    public void ASyntaxError_NamesTheFileLineAndColumn()
    {
        ProtoSyntaxException e = Assert.Throws<ProtoSyntaxException>(() =>
            ProtoSource.Compile("orders/order.proto", "syntax = \"proto3\";\n\nmessage Order {\n  string id = ;\n}\n"));

        Assert.Equal("orders/order.proto", e.FileName);
        Assert.Equal(4, e.Line);
        Assert.Equal(15, e.Column);
        Assert.StartsWith("orders/order.proto:4:15: ", e.Message, StringComparison.Ordinal);
        Assert.IsAssignableFrom<FormatException>(e);
    }

    [Fact]
    public void Imports_AreReadThroughTheCallback_WellKnownOnesAreBuiltIn()
    {
        var asked = new List<string>();
        FileDescriptorSet set = ProtoSource.Compile(
            "shop/order.proto",
            "syntax = \"proto3\";\npackage shop;\nimport \"shop/money.proto\";\nimport \"google/protobuf/timestamp.proto\";\nmessage Order { Money total = 1; google.protobuf.Timestamp at = 2; }\n",
            name =>
            {
                asked.Add(name);
                return name == "shop/money.proto" ? "syntax = \"proto3\";\npackage shop;\nmessage Money { int64 units = 1; }\n" : null;
            });

        Assert.Equal(["shop/money.proto", "google/protobuf/timestamp.proto"], asked); // each once; a well-known one is built in when answered null
        Assert.Equal("shop/order.proto", set.File[^1].Name); // the file itself last, what it imports before it
        Assert.Contains(set.File, f => f.Name == "shop/money.proto");
        Assert.Contains(set.File, f => f.Name == "google/protobuf/timestamp.proto");
        Assert.Equal([".shop.Money", ".google.protobuf.Timestamp"], set.File[^1].MessageType[0].Field.Select(f => f.TypeName));
    }

    [Fact]
    public void AnImportThatIsNotThere_IsAnError_AtItsImportLine()
    {
        ProtoSyntaxException e = Assert.Throws<ProtoSyntaxException>(() =>
            ProtoSource.Compile("a.proto", "syntax = \"proto3\";\nimport \"b.proto\";\nmessage A { B b = 1; }\n", _ => null));

        Assert.Equal(2, e.Line);
        Assert.Contains("a.proto:2:8: unable to find: 'b.proto'", e.Errors);
    }

    [Fact]
    public void AnImportsOwnError_NamesThatFile()
    {
        ProtoSyntaxException e = Assert.Throws<ProtoSyntaxException>(() =>
            ProtoSource.Compile("a.proto", "syntax = \"proto3\";\nimport \"b.proto\";\nmessage A { B b = 1; }\n", _ => "syntax = \"proto3\";\nmessage B { int32 = 1; }\n"));

        Assert.Equal("b.proto", e.FileName);
        Assert.Equal(2, e.Line);
    }

    [Fact]
    public void NestingUpToTheLimit_Compiles_OneLevelMore_IsRefusedBeforeParsing()
    {
        static string Nested(int depth) => "syntax = \"proto3\";\n" + string.Concat(Enumerable.Range(0, depth).Select(i => "message M" + i + " { ")) + new string('}', depth) + "\n";

        Assert.Single(ProtoSource.Compile("deep.proto", Nested(ProtoSource.MaxNesting)).File);

        ProtoSyntaxException e = Assert.Throws<ProtoSyntaxException>(() => ProtoSource.Compile("deep.proto", Nested(ProtoSource.MaxNesting + 1)));
        Assert.Equal(2, e.Line);
        Assert.Contains("braces nest deeper than 64", e.Message, StringComparison.Ordinal);

        // An import nested too deep is refused as it is read, naming itself.
        ProtoSyntaxException inImport = Assert.Throws<ProtoSyntaxException>(() =>
            ProtoSource.Compile("a.proto", "syntax = \"proto3\";\nimport \"deep.proto\";\n", _ => Nested(100_000)));
        Assert.Equal("deep.proto", inImport.FileName);
    }

    [Fact]
    public void BracesInStringsAndComments_DoNotCountAsNesting()
    {
        string braces = new('{', ProtoSource.MaxNesting + 10);
        string text = "syntax = \"proto3\";\n// " + braces + "\n/* " + braces + " */\nmessage M {\n  string s = 1 [json_name = \"" + braces + "\"];\n}\n";

        Assert.Equal(braces, ProtoSource.Compile("m.proto", text).File[^1].MessageType[0].Field[0].JsonName);
    }

    [Fact]
    public void AnImportCycle_IsAnError_NotAStackOverflow()
    {
        var files = new Dictionary<string, string>
        {
            ["a.proto"] = "syntax = \"proto3\";\nimport \"b.proto\";\nmessage A { B b = 1; }\n",
            ["b.proto"] = "syntax = \"proto3\";\nimport \"a.proto\";\nmessage B { int32 x = 1; }\n",
        };

        ProtoSyntaxException cycle = Assert.Throws<ProtoSyntaxException>(() => ProtoSource.Compile("a.proto", files["a.proto"], name => files.GetValueOrDefault(name)));
        Assert.Contains("imports itself through a.proto -> b.proto -> a.proto", cycle.Message, StringComparison.Ordinal);

        ProtoSyntaxException self = Assert.Throws<ProtoSyntaxException>(() => ProtoSource.Compile("a.proto", "syntax = \"proto3\";\nimport \"a.proto\";\n", _ => "syntax = \"proto3\";\nimport \"a.proto\";\n"));
        Assert.Contains("a.proto -> a.proto", self.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void ALongChainOfImports_IsOrderedWithoutRecursion()
    {
        const int Files = 2_000;
        static string File(int i) => i + 1 < Files
            ? $"syntax = \"proto3\";\nimport \"f{i + 1}.proto\";\nmessage M{i} {{ M{i + 1} next = 1; }}\n"
            : $"syntax = \"proto3\";\nmessage M{i} {{ int32 x = 1; }}\n";

        FileDescriptorSet set = ProtoSource.Compile("f0.proto", File(0), name => int.TryParse(name.AsSpan(1, name.Length - 7), out int i) ? File(i) : null);

        Assert.Equal(Enumerable.Range(0, Files).Reverse().Select(i => $"f{i}.proto"), set.File.Select(f => f.Name));
    }
}
