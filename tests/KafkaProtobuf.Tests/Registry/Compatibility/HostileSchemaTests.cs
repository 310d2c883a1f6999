using System;
using System.Linq;
using System.Threading.Tasks;
using Google.Protobuf.Reflection;
using KafkaProtobuf.SchemaRegistry;
using Xunit;

namespace KafkaProtobuf.Tests.Registry.Compatibility;

/// <summary>
/// Schemas built to hurt the checker (a descriptor set handed to the tool, a registration): each message type is walked
/// once however many fields name it, and a chain of types named through fields deeper than the limit is refused with a
/// clear error, never a stack overflow.
/// </summary>
public sealed class HostileSchemaTests
{
    private static readonly TimeSpan Deadline = TimeSpan.FromSeconds(60);

    [Fact]
    public async Task TypesNamedByTwoFieldsEach_FortyLevelsDeep_AreEachWalkedOnce()
    {
        // Walked once per path, 2^40 walks; once per type, 40.
        ProtoSchema before = ProtoSchema.Of(Chain(40, fieldsPerLevel: 2, lastType: FieldDescriptorProto.Types.Type.Int32), []);
        ProtoSchema after = ProtoSchema.Of(Chain(40, fieldsPerLevel: 2, lastType: FieldDescriptorProto.Types.Type.Sint32), []);

        var differences = await Task.Run(() => ProtobufCompatibility.Compare(before, after)).WaitAsync(Deadline);

        Assert.Contains(differences, d => d.ToString() == "FIELD_SCALAR_KIND_CHANGED #/M39/1");
        Assert.Contains(differences, d => d.ToString() == "FIELD_NAMED_TYPE_CHANGED #/M0/1");
        Assert.Contains(differences, d => d.ToString() == "FIELD_NAMED_TYPE_CHANGED #/M0/2");
    }

    [Fact]
    public void AChainOfTypesDeeperThanTheLimit_IsRefused_NotAStackOverflow()
    {
        ProtoSchema before = ProtoSchema.Of(Chain(5_000, fieldsPerLevel: 1, lastType: FieldDescriptorProto.Types.Type.Int32), []);
        ProtoSchema after = ProtoSchema.Of(Chain(5_000, fieldsPerLevel: 1, lastType: FieldDescriptorProto.Types.Type.String), []);

        ArgumentException e = Assert.Throws<ArgumentException>(() => ProtobufCompatibility.Compare(before, after));

        Assert.Contains("deeper than " + ProtobufCompatibility.MaxTypeDepth, e.Message, StringComparison.Ordinal);
        Assert.All(
            ProtobufCompatibility.Compare(
                ProtoSchema.Of(Chain(ProtobufCompatibility.MaxTypeDepth, 1, FieldDescriptorProto.Types.Type.Int32), []),
                ProtoSchema.Of(Chain(ProtobufCompatibility.MaxTypeDepth, 1, FieldDescriptorProto.Types.Type.Int64), [])),
            d => Assert.True(d.IsCompatible)); // at the limit: compared
    }

    /// <summary>M0 … M(n-1): each of the first n-1 has <paramref name="fieldsPerLevel"/> fields of the next; the last one field of <paramref name="lastType"/>.</summary>
    private static FileDescriptorProto Chain(int levels, int fieldsPerLevel, FieldDescriptorProto.Types.Type lastType)
    {
        var file = new FileDescriptorProto { Name = "chain.proto", Package = "hostile", Syntax = "proto3" };
        for (int level = 0; level < levels; level++)
        {
            var message = new DescriptorProto { Name = "M" + level };
            if (level == levels - 1)
            {
                message.Field.Add(new FieldDescriptorProto { Name = "v", Number = 1, Type = lastType, Label = FieldDescriptorProto.Types.Label.Optional });
            }
            else
            {
                for (int f = 1; f <= fieldsPerLevel; f++)
                {
                    message.Field.Add(new FieldDescriptorProto { Name = "f" + f, Number = f, Type = FieldDescriptorProto.Types.Type.Message, TypeName = ".hostile.M" + (level + 1), Label = FieldDescriptorProto.Types.Label.Optional });
                }
            }

            file.MessageType.Add(message);
        }

        return file;
    }
}
