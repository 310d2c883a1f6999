using System.Collections.Generic;
using System.Linq;
using Google.Protobuf.Reflection;
using Google.Protobuf.WellKnownTypes;

namespace KafkaProtobuf.Testing.SchemaRegistry;

/// <summary>The well-known files (<c>google/protobuf/*.proto</c>), which schemas import without a reference.</summary>
internal static class WellKnownFiles
{
    internal static readonly IReadOnlyList<FileDescriptorProto> All = new[]
    {
        AnyReflection.Descriptor, ApiReflection.Descriptor, DurationReflection.Descriptor, EmptyReflection.Descriptor,
        FieldMaskReflection.Descriptor, SourceContextReflection.Descriptor, StructReflection.Descriptor,
        TimestampReflection.Descriptor, TypeReflection.Descriptor, WrappersReflection.Descriptor, DescriptorReflection.Descriptor,
    }.Select(f => FileDescriptorProto.Parser.ParseFrom(f.SerializedData)).ToArray();
}
