using System.Collections.Generic;
using System.Globalization;
using Google.Protobuf.Reflection;

namespace KafkaProtobuf.Resolution;

/// <summary>
/// Compares a writer's message type with the reader's compiled one, field number by field number, down through the
/// message types both contain: a number both declare with different wire types means the reader would misread or
/// reject every record. Added and removed fields are fine, as Protobuf intends.
/// </summary>
internal static class WriterSchemaCheck
{
    private enum WireType
    {
        Varint,
        Fixed64,
        LengthDelimited,
        Group,
        Fixed32,
    }

    /// <summary>The first incompatibility found, described; <see langword="null"/> when there is none.</summary>
    internal static string? FindIncompatibility(MessageDescriptor writer, MessageDescriptor reader)
    {
        var visited = new HashSet<(string, string)>();
        return Compare(writer, reader, visited);
    }

    private static string? Compare(MessageDescriptor writer, MessageDescriptor reader, HashSet<(string, string)> visited)
    {
        if (ReferenceEquals(writer, reader) || !visited.Add((writer.FullName, reader.FullName)))
        {
            return null;
        }

        foreach (FieldDescriptor writerField in writer.Fields.InFieldNumberOrder())
        {
            FieldDescriptor? readerField = reader.FindFieldByNumber(writerField.FieldNumber);
            if (readerField is null)
            {
                continue;
            }

            WireType writerWire = WireTypeOf(writerField.FieldType);
            WireType readerWire = WireTypeOf(readerField.FieldType);
            if (writerWire != readerWire)
            {
                return string.Format(
                    CultureInfo.InvariantCulture,
                    "field {0}: the writer's {1}.{2} is {3} ({4}), the reader's {5}.{6} is {7} ({8})",
                    writerField.FieldNumber,
                    writer.FullName,
                    writerField.Name,
                    Describe(writerField),
                    Name(writerWire),
                    reader.FullName,
                    readerField.Name,
                    Describe(readerField),
                    Name(readerWire));
            }

            if (writerField.FieldType is FieldType.Message or FieldType.Group && readerField.FieldType is FieldType.Message or FieldType.Group)
            {
                string? nested = Compare(writerField.MessageType, readerField.MessageType, visited);
                if (nested is not null)
                {
                    return nested;
                }
            }
        }

        return null;
    }

    private static WireType WireTypeOf(FieldType type) => type switch
    {
        FieldType.Double or FieldType.Fixed64 or FieldType.SFixed64 => WireType.Fixed64,
        FieldType.Float or FieldType.Fixed32 or FieldType.SFixed32 => WireType.Fixed32,
        FieldType.String or FieldType.Bytes or FieldType.Message => WireType.LengthDelimited,
        FieldType.Group => WireType.Group,
        _ => WireType.Varint, // int32, int64, uint32, uint64, sint32, sint64, bool, enum
    };

    private static string Describe(FieldDescriptor field) =>
        (field.IsRepeated ? "repeated " : string.Empty)
        + (field.FieldType is FieldType.Message or FieldType.Group ? field.MessageType.FullName
            : field.FieldType == FieldType.Enum ? field.EnumType.FullName
            : field.FieldType.ToString().ToLowerInvariant());

    private static string Name(WireType wireType) => wireType switch
    {
        WireType.Varint => "varint",
        WireType.Fixed64 => "64-bit",
        WireType.LengthDelimited => "length-delimited",
        WireType.Group => "group",
        _ => "32-bit",
    };
}
