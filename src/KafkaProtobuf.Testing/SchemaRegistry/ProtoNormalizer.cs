using System;
using System.Linq;
using Google.Protobuf.Reflection;

namespace KafkaProtobuf.Testing.SchemaRegistry;

/// <summary>
/// What <c>normalize=true</c> makes of a Protobuf schema before it is stored or looked up, as the real registry
/// normalizes: imports sorted and once each, fields (oneofs' too) and enum constants in number order, type names
/// fully qualified (a compiled descriptor's already are). Messages keep their order: records' message indexes count it.
/// Printed, two schemas that differ only in these respects are one schema.
/// </summary>
internal static class ProtoNormalizer
{
    internal static FileDescriptorProto Normalize(FileDescriptorProto file)
    {
        FileDescriptorProto normal = file.Clone();
        string[] imports = file.Dependency.Where((_, i) => !file.PublicDependency.Contains(i)).Distinct().OrderBy(d => d, StringComparer.Ordinal).ToArray();
        string[] publicImports = file.PublicDependency.Select(i => file.Dependency[i]).Distinct().OrderBy(d => d, StringComparer.Ordinal).ToArray();
        normal.Dependency.Clear();
        normal.Dependency.AddRange(imports.Concat(publicImports));
        normal.PublicDependency.Clear();
        normal.PublicDependency.AddRange(Enumerable.Range(imports.Length, publicImports.Length));
        normal.WeakDependency.Clear();
        foreach (DescriptorProto message in normal.MessageType)
        {
            Normalize(message);
        }

        foreach (EnumDescriptorProto enumType in normal.EnumType)
        {
            Normalize(enumType);
        }

        return normal;
    }

    private static void Normalize(DescriptorProto message)
    {
        FieldDescriptorProto[] fields = message.Field.OrderBy(f => f.Number).ToArray();
        message.Field.Clear();
        message.Field.AddRange(fields);
        foreach (DescriptorProto nested in message.NestedType)
        {
            Normalize(nested);
        }

        foreach (EnumDescriptorProto enumType in message.EnumType)
        {
            Normalize(enumType);
        }
    }

    private static void Normalize(EnumDescriptorProto enumType)
    {
        EnumValueDescriptorProto[] values = enumType.Value.OrderBy(v => v.Number).ThenBy(v => v.Name, StringComparer.Ordinal).ToArray();
        enumType.Value.Clear();
        enumType.Value.AddRange(values);
    }
}
