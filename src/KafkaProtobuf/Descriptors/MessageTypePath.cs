using System;
using System.Collections.Generic;
using Google.Protobuf.Reflection;

namespace KafkaProtobuf.Descriptors;

/// <summary>
/// Message-index paths and the types they name, as Confluent's serializers number them: each step is a type's position
/// among its parent's nested types or, at the top, among the file's message types. A map field's hidden entry type
/// counts in the numbering (protoc declares it) but is no record type. The walk from a path to its type is
/// <c>MessageTypeTable.Find</c>, built on <see cref="IsRecordType"/>.
/// </summary>
internal static class MessageTypePath
{
    /// <summary>The path of <paramref name="descriptor"/> in its file, top level first.</summary>
    internal static int[] Of(MessageDescriptor descriptor)
    {
        if (descriptor is null)
        {
            throw new ArgumentNullException(nameof(descriptor));
        }

        var reversed = new List<int>();
        for (MessageDescriptor? current = descriptor; current is not null; current = current.ContainingType)
        {
            reversed.Add(current.Index);
        }

        reversed.Reverse();
        return reversed.ToArray();
    }

    /// <summary>Whether a record can be of this type: every message type but a map field's entry type.</summary>
    internal static bool IsRecordType(MessageDescriptor type) => type.GetOptions()?.MapEntry != true;
}
