using System;
using System.Collections.Generic;
using Google.Protobuf.Reflection;

namespace KafkaProtobuf;

/// <summary>The message-index path of a message type inside its .proto file, from its descriptor.</summary>
internal static class MessageTypePath
{
    /// <summary>
    /// Walks from the type up to its file: each step is the type's position among its parent's nested types (map
    /// entry types included, as protoc declares them) or, at the top, among the file's message types.
    /// </summary>
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
}
