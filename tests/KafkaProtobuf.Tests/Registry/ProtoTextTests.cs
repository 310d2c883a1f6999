using System.Collections.Generic;
using System.Linq;
using Google.Protobuf.Reflection;
using KafkaProtobuf.Testing;
using Xunit;

namespace KafkaProtobuf.Tests.Registry;

/// <summary>
/// The registry answers Protobuf schemas as .proto text, which peers parse: each file is printed, compiled by protoc,
/// and must come back as the very descriptor it was printed from.
/// </summary>
public class ProtoTextTests
{
    // Not descriptor.proto: its own field options (retention, targets, edition defaults) are not printed.
    public static TheoryData<string> Files() =>
    [
        "Protos/printer.proto", "Protos/printer3.proto", "Protos/telemetry.proto", "Protos/inventory.proto",
        "google/protobuf/timestamp.proto", "google/protobuf/struct.proto", "google/protobuf/any.proto",
        "google/protobuf/wrappers.proto", "google/protobuf/duration.proto", "google/protobuf/empty.proto",
    ];

    internal static FileDescriptor Generated(string name) => name switch
    {
        "Protos/printer.proto" => global::Tests.Printer.V1.PrinterReflection.Descriptor,
        "Protos/printer3.proto" => global::Tests.Printer.V1.Printer3Reflection.Descriptor,
        "Protos/telemetry.proto" => Vectors.Telemetry.V1.TelemetryReflection.Descriptor,
        "Protos/inventory.proto" => global::Tests.Inventory.V1.InventoryReflection.Descriptor,
        "google/protobuf/timestamp.proto" => Google.Protobuf.WellKnownTypes.TimestampReflection.Descriptor,
        "google/protobuf/struct.proto" => Google.Protobuf.WellKnownTypes.StructReflection.Descriptor,
        "google/protobuf/any.proto" => Google.Protobuf.WellKnownTypes.AnyReflection.Descriptor,
        "google/protobuf/wrappers.proto" => Google.Protobuf.WellKnownTypes.WrappersReflection.Descriptor,
        "google/protobuf/duration.proto" => Google.Protobuf.WellKnownTypes.DurationReflection.Descriptor,
        _ => Google.Protobuf.WellKnownTypes.EmptyReflection.Descriptor,
    };

    [Theory]
    [MemberData(nameof(Files))]
    public void PrintedText_CompilesBackToTheSameDescriptor(string name)
    {
        FileDescriptorProto original = FileDescriptorProto.Parser.ParseFrom(Generated(name).SerializedData);
        string text = ProtoText.Print(original);

        FileDescriptorProto compiled = Protoc.Compile(name, (name, text));

        Assert.Equal(WithoutDefaultJsonNames(original), WithoutDefaultJsonNames(compiled));
    }

    /// <summary>
    /// protoc's descriptor sets spell out every field's json_name; the C# generator's embedded descriptors keep only
    /// those that differ from the default. Both mean the same, so default ones are dropped before comparing.
    /// </summary>
    private static FileDescriptorProto WithoutDefaultJsonNames(FileDescriptorProto file)
    {
        FileDescriptorProto copy = file.Clone();
        foreach (FieldDescriptorProto field in copy.Extension.Concat(copy.MessageType.SelectMany(AllFields)))
        {
            if (field.HasJsonName && field.JsonName == DefaultJsonName(field.Name))
            {
                field.ClearJsonName();
            }
        }

        return copy;

        static IEnumerable<FieldDescriptorProto> AllFields(DescriptorProto message) =>
            message.Field.Concat(message.Extension).Concat(message.NestedType.SelectMany(AllFields));
    }

    private static string DefaultJsonName(string name)
    {
        string[] parts = name.Split('_');
        return parts[0] + string.Concat(parts.Skip(1).Select(p => p.Length == 0 ? p : char.ToUpperInvariant(p[0]) + p[1..]));
    }

    [Fact]
    public void Print_WritesWhatAPersonWouldRead()
    {
        string text = ProtoText.Print(FileDescriptorProto.Parser.ParseFrom(global::Tests.Printer.V1.Printer3Reflection.Descriptor.SerializedData));
        Assert.StartsWith("syntax = \"proto3\";\npackage tests.printer.v1;\n", text, System.StringComparison.Ordinal);
        Assert.Contains("  optional string maybe = 1;\n", text, System.StringComparison.Ordinal);
        Assert.Contains("  map<string, .tests.printer.v1.Proto3Shapes> children = 5;\n", text, System.StringComparison.Ordinal);
        Assert.Contains("  oneof pick {\n    int64 number = 6;\n    string word = 7;\n  }\n", text, System.StringComparison.Ordinal);
        Assert.Contains("  repeated .tests.printer.v1.Proto3Shapes.Kind kinds = 4 [packed = false];\n", text, System.StringComparison.Ordinal);
    }
}
