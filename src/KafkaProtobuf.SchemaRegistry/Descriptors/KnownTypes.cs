using System;
using System.Collections.Generic;
using System.Linq;
using Google.Protobuf.Reflection;
using Google.Protobuf.WellKnownTypes;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>
/// Protobuf's well-known types, taken from Google.Protobuf's own descriptors rather than from a registry (serializers
/// skip them as references by default, and a registry need not hold them).
/// </summary>
internal static class KnownTypes
{
    private static readonly Dictionary<string, FileDescriptor> Files = new FileDescriptor[]
    {
        AnyReflection.Descriptor, ApiReflection.Descriptor, DurationReflection.Descriptor, EmptyReflection.Descriptor,
        FieldMaskReflection.Descriptor, SourceContextReflection.Descriptor, StructReflection.Descriptor,
        TimestampReflection.Descriptor, TypeReflection.Descriptor, WrappersReflection.Descriptor, DescriptorReflection.Descriptor,
    }.ToDictionary(f => f.Name, StringComparer.Ordinal);

    internal static bool TryGet(string importPath, out FileDescriptor file) => Files.TryGetValue(importPath, out file!);

    /// <summary>
    /// The imports Confluent's serializers leave out of a schema's references when <c>skip.known.types</c> is on
    /// (the default): Google's and Confluent's own.
    /// </summary>
    internal static bool IsSkippedByDefault(string importPath) =>
        importPath.StartsWith("google/protobuf/", StringComparison.Ordinal)
        || importPath.StartsWith("google/type/", StringComparison.Ordinal)
        || importPath.StartsWith("confluent/", StringComparison.Ordinal);
}
