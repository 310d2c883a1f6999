using System.Collections.Generic;
using System.Linq;
using BenchmarkDotNet.Attributes;
using Google.Protobuf.Reflection;
using KafkaProtobuf.SchemaRegistry;

namespace KafkaProtobuf.Benchmarks;

/// <summary>
/// What a registration's compatibility check costs: a file of 50 messages (ten fields each, a nested message, a oneof
/// and a map) against 20 earlier versions, each a field short of the next, at FULL_TRANSITIVE (40 comparisons).
/// </summary>
[MemoryDiagnoser]
public class CompatibilityBenchmarks
{
    private const int Messages = 50;
    private const int Versions = 20;

    private readonly ProtoSchema _update = ProtoSchema.Of(File(Versions), []);
    private readonly List<ProtoSchema> _earlier = Enumerable.Range(0, Versions).Select(v => ProtoSchema.Of(File(v), [])).ToList();

    [Benchmark(Description = "50 messages against 20 versions, FULL_TRANSITIVE")]
    public bool FullTransitive() => ProtobufCompatibility.Check(_update, _earlier, CompatibilityLevel.FullTransitive).IsCompatible;

    /// <summary>Version <paramref name="version"/>: each message has 10 + version fields.</summary>
    private static FileDescriptorProto File(int version)
    {
        var file = new FileDescriptorProto { Name = "big.proto", Package = "bench.v1", Syntax = "proto3" };
        for (int m = 0; m < Messages; m++)
        {
            var message = new DescriptorProto { Name = "Message" + m };
            var nested = new DescriptorProto { Name = "Part" };
            nested.Field.Add(new FieldDescriptorProto { Name = "id", Number = 1, Type = FieldDescriptorProto.Types.Type.String, Label = FieldDescriptorProto.Types.Label.Optional });
            message.NestedType.Add(nested);
            var entry = new DescriptorProto { Name = "TagsEntry", Options = new MessageOptions { MapEntry = true } };
            entry.Field.Add(new FieldDescriptorProto { Name = "key", Number = 1, Type = FieldDescriptorProto.Types.Type.String, Label = FieldDescriptorProto.Types.Label.Optional });
            entry.Field.Add(new FieldDescriptorProto { Name = "value", Number = 2, Type = FieldDescriptorProto.Types.Type.Int64, Label = FieldDescriptorProto.Types.Label.Optional });
            message.NestedType.Add(entry);
            message.OneofDecl.Add(new OneofDescriptorProto { Name = "choice" });
            for (int f = 1; f <= 10 + version; f++)
            {
                message.Field.Add(new FieldDescriptorProto { Name = "field" + f, Number = f, Type = FieldDescriptorProto.Types.Type.Int64, Label = FieldDescriptorProto.Types.Label.Optional });
            }

            message.Field.Add(new FieldDescriptorProto { Name = "part", Number = 100, Type = FieldDescriptorProto.Types.Type.Message, TypeName = ".bench.v1.Message" + m + ".Part", Label = FieldDescriptorProto.Types.Label.Optional });
            message.Field.Add(new FieldDescriptorProto { Name = "tags", Number = 101, Type = FieldDescriptorProto.Types.Type.Message, TypeName = ".bench.v1.Message" + m + ".TagsEntry", Label = FieldDescriptorProto.Types.Label.Repeated });
            message.Field.Add(new FieldDescriptorProto { Name = "a", Number = 102, Type = FieldDescriptorProto.Types.Type.String, Label = FieldDescriptorProto.Types.Label.Optional, OneofIndex = 0 });
            message.Field.Add(new FieldDescriptorProto { Name = "b", Number = 103, Type = FieldDescriptorProto.Types.Type.Bytes, Label = FieldDescriptorProto.Types.Label.Optional, OneofIndex = 0 });
            file.MessageType.Add(message);
        }

        return file;
    }
}
