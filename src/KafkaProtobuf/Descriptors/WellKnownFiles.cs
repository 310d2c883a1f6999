using System;
using System.Collections.Generic;
using System.Linq;
using Google.Protobuf.Reflection;
using Google.Protobuf.WellKnownTypes;

namespace KafkaProtobuf.Descriptors;

/// <summary>
/// The .proto files Google.Protobuf ships compiled: the well-known types (whose JSON forms are special) and
/// descriptor.proto. A schema may import any of them without a registry reference, since every client has them.
/// Self-contained, so the packages that cannot see the core's internals share it as source.
/// </summary>
internal static class WellKnownFiles
{
    /// <summary>The files of the well-known types, by import path.</summary>
    private static readonly Dictionary<string, FileDescriptor> WellKnownTypeFiles = new FileDescriptor[]
    {
        AnyReflection.Descriptor, ApiReflection.Descriptor, DurationReflection.Descriptor, EmptyReflection.Descriptor,
        FieldMaskReflection.Descriptor, SourceContextReflection.Descriptor, StructReflection.Descriptor,
        TimestampReflection.Descriptor, TypeReflection.Descriptor, WrappersReflection.Descriptor,
    }.ToDictionary(f => f.Name, StringComparer.Ordinal);

    /// <summary>The well-known types' files and descriptor.proto, by import path.</summary>
    private static readonly Dictionary<string, FileDescriptor> Bundled = WellKnownTypeFiles.Values
        .Append(DescriptorReflection.Descriptor)
        .ToDictionary(f => f.Name, StringComparer.Ordinal);

    /// <summary>The compiled file for an import path Google.Protobuf ships, e.g. <c>google/protobuf/timestamp.proto</c>.</summary>
    internal static bool TryGet(string importPath, out FileDescriptor file) => Bundled.TryGetValue(importPath, out file!);

    /// <summary>Whether a type is one of the well-known types (Timestamp, Duration, the wrappers, Struct, Any, ...).</summary>
    internal static bool IsWellKnownType(MessageDescriptor type) => WellKnownTypeFiles.ContainsKey(type.File.Name);
}
