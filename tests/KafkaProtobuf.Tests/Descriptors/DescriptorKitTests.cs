using System;
using System.Collections;
using System.Collections.Generic;
using System.Linq;
using Confluent.Kafka;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf.Descriptors;
using KafkaProtobuf.Framing;
using KafkaProtobuf.Resolution;
using Xunit;

namespace KafkaProtobuf.Tests.Descriptors;

/// <summary>
/// The descriptor kit (src/KafkaProtobuf/Descriptors), tested once for every package that shares it: message-index
/// paths and the one walk from a path to its type, wire types, JSON names, the well-known files.
/// </summary>
public class DescriptorKitTests
{
    private static readonly FileDescriptor[] TestFiles =
    [
        Vectors.Telemetry.V1.TelemetryReflection.Descriptor, global::Tests.Inventory.V1.InventoryReflection.Descriptor,
        global::Tests.Printer.V1.PrinterReflection.Descriptor, global::Tests.Printer.V1.Printer3Reflection.Descriptor,
        KafkaProtobuf.Tests.ToolTypes.EverythingReflection.Descriptor, KafkaProtobuf.Tests.ToolTypes.CommonReflection.Descriptor,
    ];

    private static IEnumerable<MessageDescriptor> AllTypes(IEnumerable<MessageDescriptor> level) =>
        level.SelectMany(t => new[] { t }.Concat(AllTypes(t.NestedTypes)));

    [Fact]
    public void EveryTypesPath_LeadsBackToIt_AndAMapEntrysPathNamesNoRecordType()
    {
        int mapEntries = 0;
        foreach (FileDescriptor file in TestFiles)
        {
            MessageTypeTable table = MessageTypeTable.Build(file, _ => null, checkWriterSchema: false);
            foreach (MessageDescriptor type in AllTypes(file.MessageTypes))
            {
                int[] path = MessageTypePath.Of(type);
                MessageDescriptor? found = FindIn(table, path);
                if (MessageTypePath.IsRecordType(type))
                {
                    Assert.Same(type, found);
                }
                else
                {
                    Assert.Null(found); // a map field's hidden entry type counts in the numbering but is no record type
                    mapEntries++;
                }
            }
        }

        Assert.True(mapEntries >= 5, "the test files declare map fields");
    }

    [Fact]
    public void APathPastTheTypes_NamesNothing()
    {
        MessageTypeTable table = MessageTypeTable.Build(Vectors.Telemetry.V1.TelemetryReflection.Descriptor, _ => null, checkWriterSchema: false);

        Assert.Null(FindIn(table, [Vectors.Telemetry.V1.TelemetryReflection.Descriptor.MessageTypes.Count]));
        Assert.Null(FindIn(table, [0, 0])); // Reading has no nested types
        Assert.Equal("vectors.telemetry.v1.Device.Location", FindIn(table, [1, 1])!.FullName);
    }

    [Fact]
    public void WireTypes_AreTheOnesGoogleProtobufWrites_ForEveryFieldType()
    {
        var seen = new HashSet<FieldType>();
        foreach (IMessage message in new IMessage[] { new KafkaProtobuf.Tests.ToolTypes.Everything(), new global::Tests.Printer.V1.Everything() })
        {
            foreach (FieldDescriptor field in message.Descriptor.Fields.InFieldNumberOrder().Where(IsSampled))
            {
                object value = Sample(field);
                if (field.IsRepeated)
                {
                    var list = (IList)field.Accessor.GetValue(message);
                    list.Add(value);
                    list.Add(value);
                }
                else
                {
                    field.Accessor.SetValue(message, value);
                }
            }

            Dictionary<int, WireFormat.WireType> written = FirstWireTypes(message.ToByteArray());
            foreach (FieldDescriptor field in message.Descriptor.Fields.InFieldNumberOrder().Where(IsSampled))
            {
                WireType expected = field.IsRepeated && field.IsPacked && WireTypes.IsPackable(field.FieldType) ? WireType.LengthDelimited : WireTypes.Of(field.FieldType);
                Assert.True((int)expected == (int)written[field.FieldNumber], $"{field.FullName} ({field.FieldType}): written as {written[field.FieldNumber]}, the kit says {expected}");
                seen.Add(field.FieldType);
            }
        }

        Assert.Equal(System.Enum.GetValues<FieldType>().Length, seen.Count); // every field type was checked
        Assert.All(new[] { FieldType.String, FieldType.Bytes, FieldType.Message, FieldType.Group }, type => Assert.False(WireTypes.IsPackable(type)));
    }

    [Fact]
    public void JsonNames_AreProtocs_ForEveryFieldOfTheTestFiles()
    {
        int checkedFields = 0;
        foreach (FileDescriptor file in TestFiles)
        {
            foreach (FieldDescriptor field in AllTypes(file.MessageTypes).SelectMany(t => t.Fields.InFieldNumberOrder()))
            {
                if (field.Name == "custom_json")
                {
                    continue; // printer.proto sets this json_name itself
                }

                Assert.Equal(field.JsonName, JsonNames.FromFieldName(field.Name));
                checkedFields++;
            }
        }

        Assert.True(checkedFields > 100, $"{checkedFields} fields checked");
        Assert.Equal("aBC", JsonNames.FromFieldName("a_b_c"));
        Assert.Equal("fooBar", JsonNames.FromFieldName("foo__bar"));
    }

    [Fact]
    public void WellKnownFiles_AreGoogleProtobufsOwn_AndOnlyTheWellKnownTypesAreWellKnown()
    {
        foreach (string name in new[] { "any", "api", "duration", "empty", "field_mask", "source_context", "struct", "timestamp", "type", "wrappers", "descriptor" })
        {
            Assert.True(WellKnownFiles.TryGet("google/protobuf/" + name + ".proto", out FileDescriptor file), name);
            Assert.Equal("google.protobuf", file.Package);
        }

        Assert.False(WellKnownFiles.TryGet("tool/v1/common.proto", out _));
        Assert.True(WellKnownFiles.IsWellKnownType(Google.Protobuf.WellKnownTypes.Timestamp.Descriptor));
        Assert.True(WellKnownFiles.IsWellKnownType(Google.Protobuf.WellKnownTypes.Struct.Descriptor));
        Assert.True(WellKnownFiles.IsWellKnownType(Google.Protobuf.WellKnownTypes.Int64Value.Descriptor));
        Assert.False(WellKnownFiles.IsWellKnownType(FileDescriptorProto.Descriptor)); // descriptor.proto ships, but has no special JSON form
        Assert.False(WellKnownFiles.IsWellKnownType(Vectors.Telemetry.V1.Reading.Descriptor));
    }

    /// <summary>Fields <see cref="Sample"/> can fill: not maps, oneofs or wrappers (whose generated properties are nullable scalars).</summary>
    private static bool IsSampled(FieldDescriptor field) =>
        !field.IsMap && field.RealContainingOneof is null
        && !(field.FieldType == FieldType.Message && field.MessageType.File == Google.Protobuf.WellKnownTypes.WrappersReflection.Descriptor);

    /// <summary>The type a path names, through the frame reader's own path view (as the deserializers see it).</summary>
    private static MessageDescriptor? FindIn(MessageTypeTable table, int[] path)
    {
        byte[] framed = new byte[FrameWriter.GetSchemaIdAndIndexesLength(SchemaIdentifier.FromId(1), path, MessageIndexEncoding.ZigZag)];
        FrameWriter.WriteSchemaIdAndIndexes(framed, SchemaIdentifier.FromId(1), path, MessageIndexEncoding.ZigZag);
        Frame frame = FrameReader.Default.Read(framed, new SerializationContext(MessageComponentType.Value, "t"));
        return table.Find(frame.MessageIndexPath)?.Writer;
    }

    private static Dictionary<int, WireFormat.WireType> FirstWireTypes(byte[] encoded)
    {
        var first = new Dictionary<int, WireFormat.WireType>();
        var input = new CodedInputStream(encoded);
        uint tag;
        while ((tag = input.ReadTag()) != 0)
        {
            first.TryAdd(WireFormat.GetTagFieldNumber(tag), WireFormat.GetTagWireType(tag));
            input.SkipLastField();
        }

        return first;
    }

    private static object Sample(FieldDescriptor field) => field.FieldType switch
    {
        FieldType.Double => 1.5d,
        FieldType.Float => 1.5f,
        FieldType.Int64 or FieldType.SInt64 or FieldType.SFixed64 => 1L,
        FieldType.UInt64 or FieldType.Fixed64 => 1UL,
        FieldType.Int32 or FieldType.SInt32 or FieldType.SFixed32 => 1,
        FieldType.UInt32 or FieldType.Fixed32 => 1u,
        FieldType.Bool => true,
        FieldType.String => "x",
        FieldType.Bytes => ByteString.CopyFromUtf8("x"),
        FieldType.Enum => System.Enum.ToObject(field.EnumType.ClrType, 1),
        _ => Activator.CreateInstance(field.MessageType.ClrType)!, // message or group
    };
}
