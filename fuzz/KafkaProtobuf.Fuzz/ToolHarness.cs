using System;
using System.Buffers;
using System.Text.Json;
using System.Threading;
using Confluent.Kafka;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf.Decoding;
using KafkaProtobuf.Framing;
using KafkaProtobuf.Tool.Commands;
using KafkaProtobuf.Tool.Output;
using KafkaProtobuf.Tool.Schemas;
using Vectors.Telemetry.V1;

namespace KafkaProtobuf.Fuzz;

/// <summary>
/// The fuzz target for kafka-protobuf's decoder (<c>tool</c>): an input is a record as <see cref="Harness.Decode"/> reads
/// it, taken apart and decoded as the tool does for <c>consume</c> (its JSON line) and <c>frame</c> (its text layout),
/// from telemetry.proto and a message type that nests itself. The invariant: every input gives a part (decoded, or an
/// error said as a value) and both outputs; any exception is a finding, and nothing printed holds a raw escape. Also
/// compiled into the tests, which replay its findings.
/// </summary>
public static class ToolHarness
{
    /// <summary><c>message Node { Node child = 1; string name = 2; repeated Node children = 3; Any any = 4; Value value = 5; }</c>: a type that nests as deep as its payload does.</summary>
    public static FileDescriptor Node { get; } = FileDescriptor.BuildFromByteStrings([Google.Protobuf.WellKnownTypes.AnyReflection.Descriptor.SerializedData, Google.Protobuf.WellKnownTypes.StructReflection.Descriptor.SerializedData, new FileDescriptorProto
    {
        Name = "node.proto",
        Package = "fuzz.v1",
        Syntax = "proto3",
        MessageType =
        {
            new DescriptorProto
            {
                Name = "Node",
                Field =
                {
                    new FieldDescriptorProto { Name = "child", Number = 1, Type = FieldDescriptorProto.Types.Type.Message, TypeName = ".fuzz.v1.Node", Label = FieldDescriptorProto.Types.Label.Optional },
                    new FieldDescriptorProto { Name = "name", Number = 2, Type = FieldDescriptorProto.Types.Type.String, Label = FieldDescriptorProto.Types.Label.Optional },
                    new FieldDescriptorProto { Name = "children", Number = 3, Type = FieldDescriptorProto.Types.Type.Message, TypeName = ".fuzz.v1.Node", Label = FieldDescriptorProto.Types.Label.Repeated },
                    new FieldDescriptorProto { Name = "any", Number = 4, Type = FieldDescriptorProto.Types.Type.Message, TypeName = ".google.protobuf.Any", Label = FieldDescriptorProto.Types.Label.Optional },
                    new FieldDescriptorProto { Name = "value", Number = 5, Type = FieldDescriptorProto.Types.Type.Message, TypeName = ".google.protobuf.Value", Label = FieldDescriptorProto.Types.Label.Optional },
                },
            },
        },
        Dependency = { "google/protobuf/any.proto", "google/protobuf/struct.proto" },
    }.ToByteString()])[2];

    // Odd ids are telemetry.proto, even ones the self-nesting node.proto; the reader as the tool's defaults make it.
    private static readonly RecordParts Parts = new(
        new WriterSchemaDecoder(new FunctionSchemaSource(id => id.Id is int n && n % 2 == 0 ? Node : TelemetryReflection.Descriptor)), null, MessageIndexOrder.RootFirst);

    private static readonly RecordParts IndentedParts = new(
        new WriterSchemaDecoder(new WriterSchemaDecoderOptions { Indented = true, WriterSchemas = { Source = new FunctionSchemaSource(id => id.Id is int n && n % 2 == 0 ? Node : TelemetryReflection.Descriptor) } }), null, MessageIndexOrder.RootFirst);

    public static void Check(ReadOnlySpan<byte> input)
    {
        Harness.Record record = Harness.Decode(input);
        ShownPart part = ((record.Options & 0x20) != 0 ? IndentedParts : Parts).DecodeAsync(record.Data, record.Context, null, CancellationToken.None).GetAwaiter().GetResult();
        var buffer = new ArrayBufferWriter<byte>();
        using (var writer = new Utf8JsonWriter(buffer, JsonFormat.Compact))
        {
            PartJson.Write(writer, part, record.Data);
        }

        string json = TerminalText.EscapeBidi(System.Text.Encoding.UTF8.GetString(buffer.WrittenSpan));
        using (JsonDocument.Parse(json, new JsonDocumentOptions { MaxDepth = 1024 }))
        {
            // the line consume prints is one valid JSON value
        }

        string layout = FrameCommand.Layout(record.Data, part, haveSchemas: true);
        foreach (string text in new[] { json, layout })
        {
            foreach (char c in text)
            {
                if (c == '\u001b' || (c >= '\u202a' && c <= '\u202e') || (c >= '\u2066' && c <= '\u2069'))
                {
                    throw new FuzzFindingException("a raw escape or bidirectional control in the tool's output");
                }
            }
        }
    }
}
