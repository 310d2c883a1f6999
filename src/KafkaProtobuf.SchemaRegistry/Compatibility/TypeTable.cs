using System;
using System.Collections.Generic;
using Google.Protobuf.Reflection;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>Every message and enum a schema's fields may name, by full name (no leading dot), with the package of the file that declares it.</summary>
internal sealed class TypeTable
{
    private readonly Dictionary<string, DeclaredType> _types = new(StringComparer.Ordinal);

    public TypeTable(FileDescriptorProto file, IEnumerable<FileDescriptorProto> dependencies)
    {
        foreach (FileDescriptorProto dependency in dependencies)
        {
            Add(dependency, referenced: true);
        }

        Add(file, referenced: false); // the schema's own declarations win over a dependency's of the same name
    }

    /// <summary>The type a field names (<c>.pkg.Outer.Inner</c>), or null when no file declares it.</summary>
    public DeclaredType? Find(string typeName) =>
        _types.TryGetValue(typeName.Length > 0 && typeName[0] == '.' ? typeName.Substring(1) : typeName, out DeclaredType? type) ? type : null;

    public static bool IsProto3(FileDescriptorProto file) => string.Equals(file.Syntax, "proto3", StringComparison.Ordinal);

    private void Add(FileDescriptorProto file, bool referenced)
    {
        string prefix = string.IsNullOrEmpty(file.Package) ? string.Empty : file.Package + ".";
        foreach (DescriptorProto message in file.MessageType)
        {
            AddMessage(prefix + message.Name, message, file, referenced);
        }

        foreach (EnumDescriptorProto enumType in file.EnumType)
        {
            _types[prefix + enumType.Name] = new DeclaredType(file, referenced, null, enumType);
        }
    }

    private void AddMessage(string fullName, DescriptorProto message, FileDescriptorProto file, bool referenced)
    {
        _types[fullName] = new DeclaredType(file, referenced, message, null);
        foreach (DescriptorProto nested in message.NestedType)
        {
            AddMessage(fullName + "." + nested.Name, nested, file, referenced);
        }

        foreach (EnumDescriptorProto enumType in message.EnumType)
        {
            _types[fullName + "." + enumType.Name] = new DeclaredType(file, referenced, null, enumType);
        }
    }
}

/// <summary>A declared message or enum and where it comes from.</summary>
internal sealed class DeclaredType(FileDescriptorProto file, bool referenced, DescriptorProto? message, EnumDescriptorProto? enumType)
{
    public string Package { get; } = file.Package ?? string.Empty;

    public string FileName { get; } = file.Name;

    /// <summary>Whether its file is proto3 (a field without a label has no presence there).</summary>
    public bool Proto3 { get; } = TypeTable.IsProto3(file);

    /// <summary>Whether a dependency declares it, rather than the schema's own file.</summary>
    public bool Referenced { get; } = referenced;

    public DescriptorProto? Message { get; } = message;

    public EnumDescriptorProto? Enum { get; } = enumType;

    /// <summary>A map field's entry: not a message of its own; compared as its key and value.</summary>
    public bool IsMapEntry => Message?.Options?.MapEntry == true;

    /// <summary>The full name without the package: what a message-typed field is compared by.</summary>
    public string LocalName(string fullName)
    {
        string name = fullName.Length > 0 && fullName[0] == '.' ? fullName.Substring(1) : fullName;
        return Package.Length > 0 && name.StartsWith(Package + ".", StringComparison.Ordinal) ? name.Substring(Package.Length + 1) : name;
    }
}
