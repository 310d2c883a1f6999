using System;
using System.Collections.Generic;
using Google.Protobuf;
using Google.Protobuf.Reflection;

namespace KafkaProtobuf;

/// <summary>
/// The message types of one .proto file laid out by message-index path, built once so that resolving a record's path
/// is a walk over arrays: no strings, no hashing, no allocation.
/// </summary>
internal sealed class MessageTypeTable
{
    private readonly Node[] _topLevel;

    private MessageTypeTable(FileDescriptor file, Node[] topLevel)
    {
        File = file;
        _topLevel = topLevel;
    }

    internal FileDescriptor File { get; }

    /// <summary>Builds the table; <paramref name="isRegistered"/> says which types get a parser.</summary>
    internal static MessageTypeTable Build(FileDescriptor file, Func<MessageDescriptor, bool> isRegistered) =>
        new(file, BuildLevel(file.MessageTypes, isRegistered));

    /// <summary>The type at <paramref name="path"/>, or <see langword="null"/> when the path names none.</summary>
    internal Node? Find(MessageIndexPath path)
    {
        Node[] level = _topLevel;
        Node? node = null;
        foreach (int index in path)
        {
            if ((uint)index >= (uint)level.Length)
            {
                return null;
            }

            node = level[index];
            level = node.Nested;
        }

        return node is { IsMapEntry: false } ? node : null;
    }

    private static Node[] BuildLevel(IList<MessageDescriptor> types, Func<MessageDescriptor, bool> isRegistered)
    {
        var level = new Node[types.Count];
        for (int i = 0; i < level.Length; i++)
        {
            MessageDescriptor type = types[i];
            bool mapEntry = type.GetOptions()?.MapEntry == true;
            level[i] = new Node(
                type,
                mapEntry,
                !mapEntry && isRegistered(type) ? type.Parser : null,
                BuildLevel(type.NestedTypes, isRegistered));
        }

        return level;
    }

    /// <summary>One message type: its parser when registered, the marker to return when skipped, its metric tag.</summary>
    internal sealed class Node
    {
        internal Node(MessageDescriptor descriptor, bool isMapEntry, MessageParser? parser, Node[] nested)
        {
            Descriptor = descriptor;
            IsMapEntry = isMapEntry;
            Parser = parser;
            Nested = nested;
            Skipped = new SkippedMessage(descriptor);
            TypeTag = KafkaProtobufMetrics.TypeTag(descriptor.FullName);
        }

        internal MessageDescriptor Descriptor { get; }

        internal bool IsMapEntry { get; }

        /// <summary>The parser, or <see langword="null"/> for a type the deserializer was not given.</summary>
        internal MessageParser? Parser { get; }

        internal Node[] Nested { get; }

        internal SkippedMessage Skipped { get; }

        internal KeyValuePair<string, object?> TypeTag { get; }
    }
}
