using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.Json;
using CsCheck;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf.Decoding;
using KafkaProtobuf.SchemaRegistry;
using Xunit;
using FieldType = Google.Protobuf.Reflection.FieldDescriptorProto.Types.Type;

namespace KafkaProtobuf.Tests.Registry.Compatibility;

/// <summary>
/// The checker against the wire: random proto3 messages, one random edit each; whenever the edit is called compatible
/// at BACKWARD, records written with the original are read with the update by the tool's descriptor-driven decoder,
/// and no field the update declares arrives with a wire type it cannot take. CsCheck prints the seed of a failing case.
/// </summary>
public sealed class CompatibilityWireProperties
{
    private static readonly FieldType[] Scalars =
    [
        FieldType.Int32, FieldType.Int64, FieldType.Uint32, FieldType.Uint64, FieldType.Bool, FieldType.Sint32, FieldType.Sint64,
        FieldType.Fixed32, FieldType.Sfixed32, FieldType.Fixed64, FieldType.Sfixed64, FieldType.Float, FieldType.Double,
        FieldType.String, FieldType.Bytes, FieldType.Enum,
    ];

    private static readonly Gen<FieldSpec> Field =
        Gen.Select(Gen.Int[0, Scalars.Length - 1], Gen.Int[0, 3], (type, shape) => new FieldSpec(0, "f", Scalars[type], Repeated: shape == 1, InOneof: shape == 2));

    private static readonly Gen<List<FieldSpec>> Message =
        Gen.Select(Field.List[1, 6], Gen.Int[1, 12].Array[6], (fields, numbers) =>
        {
            int[] distinct = numbers.Distinct().ToArray();
            return fields.Take(distinct.Length).Select((f, i) => f with { Number = distinct[i], Name = "f" + distinct[i] }).ToList();
        });

    private static readonly Gen<(List<FieldSpec> Original, List<FieldSpec> Update)> Evolution =
        Gen.Select(Message, Gen.Int[0, 5], Gen.Int[0, 5], Gen.Int[0, Scalars.Length - 1], Gen.Int[13, 20], (original, edit, which, type, newNumber) =>
        {
            int i = which % original.Count;
            FieldSpec f = original[i];
            List<FieldSpec> update = [.. original];
            switch (edit)
            {
                case 0:
                    update[i] = f with { Type = Scalars[type] };
                    break;
                case 1:
                    update.RemoveAt(i);
                    break;
                case 2:
                    update.Add(new FieldSpec(newNumber, "f" + newNumber, Scalars[type], Repeated: false, InOneof: false));
                    break;
                case 3 when !f.InOneof && (f.Type is FieldType.String or FieldType.Bytes):
                    update[i] = f with { Repeated = !f.Repeated }; // numeric ones: see ANumericFieldMadeRepeated_WithoutALabel_...
                    break;
                case 4 when !f.Repeated:
                    update[i] = f with { InOneof = !f.InOneof };
                    break;
                default:
                    update[i] = f with { Name = f.Name + "_renamed" };
                    break;
            }

            return (original, update);
        });

    [Fact]
    public void WhatIsCalledBackwardCompatible_ReadsWithoutAWireTypeTheUpdateCannotTake() =>
        Gen.Select(Evolution, Gen.Long.Array[6], Gen.Int[0, 5]).Sample(
            c =>
            {
                ((List<FieldSpec> original, List<FieldSpec> update), long[] values, int setInOneof) = c;
                FileDescriptorProto before = File(original);
                FileDescriptorProto after = File(update);
                CompatibilityVerdict verdict = ProtobufCompatibility.Check(ProtoSchema.Of(after, []), [ProtoSchema.Of(before, [])], CompatibilityLevel.Backward);
                if (!verdict.IsCompatible)
                {
                    return;
                }

                byte[] record = Encode(original, values, setInOneof);
                MessageDescriptor reader = FileDescriptor.BuildFromByteStrings([after.ToByteString()])[0].MessageTypes[0];
                string json = new ProtoJsonDecoder([reader.File]).Decode(reader, record);
                using JsonDocument read = JsonDocument.Parse(json);
                int[] misread = read.RootElement.TryGetProperty("@unknown", out JsonElement unknown)
                    ? unknown.EnumerateObject().Select(p => int.Parse(p.Name, System.Globalization.CultureInfo.InvariantCulture)).Where(n => update.Any(f => f.Number == n)).ToArray()
                    : [];
                Assert.True(
                    misread.Length == 0,
                    $"called compatible ({string.Join(", ", verdict.Comparisons[0].Differences)}), yet fields {string.Join(", ", misread)} arrive with a wire type the update cannot take: {json}");
            },
            iter: 3_000);

    [Fact]
    public void ANumericFieldMadeRepeated_WithoutALabel_IsCalledCompatibleAsTheRegistryDoes_ThoughPackedValuesAreMisread()
    {
        List<FieldSpec> repeated = [new FieldSpec(1, "f1", FieldType.Int32, Repeated: true, InOneof: false)];
        List<FieldSpec> singular = [new FieldSpec(1, "f1", FieldType.Int32, Repeated: false, InOneof: false)];

        // The registry compares labels only where both fields have one; a proto3 field without one has none.
        Assert.True(ProtobufCompatibility.Check(ProtoSchema.Of(File(singular), []), [ProtoSchema.Of(File(repeated), [])], CompatibilityLevel.Backward).IsCompatible);

        MessageDescriptor reader = FileDescriptor.BuildFromByteStrings([File(singular).ToByteString()])[0].MessageTypes[0];
        string json = new ProtoJsonDecoder([reader.File]).Decode(reader, Encode(repeated, [7, 8], 0));
        Assert.Contains("\"@unknown\"", json, StringComparison.Ordinal); // the packed values are not an int32 to this reader
    }

    private static FileDescriptorProto File(List<FieldSpec> fields)
    {
        var message = new DescriptorProto { Name = "M" };
        if (fields.Any(f => f.InOneof))
        {
            message.OneofDecl.Add(new OneofDescriptorProto { Name = "choice" });
        }

        foreach (FieldSpec f in fields)
        {
            var field = new FieldDescriptorProto
            {
                Name = f.Name,
                Number = f.Number,
                Type = f.Type,
                Label = f.Repeated ? FieldDescriptorProto.Types.Label.Repeated : FieldDescriptorProto.Types.Label.Optional,
            };
            if (f.Type == FieldType.Enum)
            {
                field.TypeName = ".test.E";
            }

            if (f.InOneof)
            {
                field.OneofIndex = 0;
            }

            message.Field.Add(field);
        }

        var file = new FileDescriptorProto { Name = "m.proto", Package = "test", Syntax = "proto3" };
        file.MessageType.Add(message);
        var e = new EnumDescriptorProto { Name = "E" };
        e.Value.Add(new EnumValueDescriptorProto { Name = "E0", Number = 0 });
        file.EnumType.Add(e);
        return file;
    }

    /// <summary>A record as the original schema writes it: every field set (repeated ones packed where proto3 packs them), one oneof member.</summary>
    private static byte[] Encode(List<FieldSpec> fields, long[] values, int setInOneof)
    {
        using var bytes = new MemoryStream();
        var output = new CodedOutputStream(bytes);
        FieldSpec[] members = [.. fields.Where(f => f.InOneof)];
        for (int i = 0; i < fields.Count; i++)
        {
            FieldSpec f = fields[i];
            if (f.InOneof && !ReferenceEquals(f, members[setInOneof % members.Length]))
            {
                continue;
            }

            long value = values[i % values.Length];
            if (f.Repeated && f.Type is not (FieldType.String or FieldType.Bytes))
            {
                using var packed = new MemoryStream();
                var inner = new CodedOutputStream(packed);
                WriteValue(inner, f.Type, value);
                WriteValue(inner, f.Type, value + 1);
                inner.Flush();
                output.WriteTag(f.Number, WireFormat.WireType.LengthDelimited);
                output.WriteBytes(ByteString.CopyFrom(packed.ToArray()));
            }
            else
            {
                output.WriteTag(f.Number, WireOf(f.Type));
                WriteValue(output, f.Type, value);
            }
        }

        output.Flush();
        return bytes.ToArray();
    }

    private static WireFormat.WireType WireOf(FieldType type) => type switch
    {
        FieldType.Fixed32 or FieldType.Sfixed32 or FieldType.Float => WireFormat.WireType.Fixed32,
        FieldType.Fixed64 or FieldType.Sfixed64 or FieldType.Double => WireFormat.WireType.Fixed64,
        FieldType.String or FieldType.Bytes => WireFormat.WireType.LengthDelimited,
        _ => WireFormat.WireType.Varint,
    };

    private static void WriteValue(CodedOutputStream output, FieldType type, long value)
    {
        switch (WireOf(type))
        {
            case WireFormat.WireType.Fixed32:
                output.WriteFixed32((uint)value);
                break;
            case WireFormat.WireType.Fixed64:
                output.WriteFixed64((ulong)value);
                break;
            case WireFormat.WireType.LengthDelimited:
                output.WriteString("v" + value);
                break;
            default:
                if (type is FieldType.Sint32 or FieldType.Sint64)
                {
                    output.WriteSInt64(value);
                }
                else
                {
                    output.WriteUInt64(type == FieldType.Bool ? (ulong)(value & 1) : (ulong)value);
                }

                break;
        }
    }

    private sealed record FieldSpec(int Number, string Name, FieldType Type, bool Repeated, bool InOneof);
}
