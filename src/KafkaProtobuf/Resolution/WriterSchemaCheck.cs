using System.Collections.Generic;
using System.Globalization;
using Google.Protobuf.Reflection;
using KafkaProtobuf.Descriptors;

namespace KafkaProtobuf.Resolution;

/// <summary>
/// Compares a writer's message type with the reader's compiled one, field number by field number, down through the
/// message types both contain: a number both declare with different wire types means the reader would misread or
/// reject every record. Added and removed fields are fine, as Protobuf intends.
/// </summary>
internal static class WriterSchemaCheck
{
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

            WireType writerWire = WireTypes.Of(writerField.FieldType);
            WireType readerWire = WireTypes.Of(readerField.FieldType);
            if (writerWire != readerWire)
            {
                return string.Format(
                    CultureInfo.InvariantCulture,
                    "field {0}: the writer's {1}.{2} is {3} ({4}), the reader's {5}.{6} is {7} ({8})",
                    writerField.FieldNumber,
                    writer.FullName,
                    writerField.Name,
                    Describe(writerField),
                    WireTypes.Name(writerWire),
                    reader.FullName,
                    readerField.Name,
                    Describe(readerField),
                    WireTypes.Name(readerWire));
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

    private static string Describe(FieldDescriptor field) =>
        (field.IsRepeated ? "repeated " : string.Empty)
        + (field.FieldType is FieldType.Message or FieldType.Group ? field.MessageType.FullName
            : field.FieldType == FieldType.Enum ? field.EnumType.FullName
            : field.FieldType.ToString().ToLowerInvariant());
}
