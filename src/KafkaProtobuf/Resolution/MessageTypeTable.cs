using System;
using System.Collections.Generic;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf.Descriptors;
using KafkaProtobuf.Diagnostics;
using KafkaProtobuf.Framing;

namespace KafkaProtobuf.Resolution;

/// <summary>
/// The message types of a writer's .proto file laid out by message-index path, each matched by full name to the reader's
/// compiled type, built once so that resolving a record's path is a walk over arrays: no strings, no hashing, no
/// allocation. The writer's file may be the reader's own generated one, or one rebuilt from a schema registry, whose
/// messages may be declared in another order: the path is always read in the writer's file.
/// </summary>
internal sealed class MessageTypeTable
{
    private readonly Node[] _topLevel;

    private MessageTypeTable(FileDescriptor file, Node[] topLevel)
    {
        File = file;
        _topLevel = topLevel;
    }

    /// <summary>The writer's file.</summary>
    internal FileDescriptor File { get; }

    /// <summary>
    /// Builds the table. <paramref name="readerTypeFor"/> gives the reader's compiled type of a writer type (by full
    /// name), or <see langword="null"/> for a type the reader was not given. With <paramref name="checkWriterSchema"/>,
    /// each matched pair is compared field by field (<see cref="WriterSchemaCheck"/>).
    /// </summary>
    internal static MessageTypeTable Build(FileDescriptor writerFile, Func<MessageDescriptor, MessageDescriptor?> readerTypeFor, bool checkWriterSchema) =>
        new(writerFile, BuildLevel(writerFile.MessageTypes, readerTypeFor, checkWriterSchema));

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

    /// <summary>
    /// The type <paramref name="path"/> names read as written or, failing that, reversed
    /// (<see cref="MessageIndexOrder.EitherByWriterSchema"/>). When both readings name a type, and not the same one,
    /// the one as written is returned and the other is <paramref name="otherReading"/>: the caller rejects the record.
    /// </summary>
    internal Node? FindEitherOrder(MessageIndexPath path, out Node? otherReading)
    {
        Node? asWritten = Find(path);
        otherReading = FindInOtherOrder(path, asWritten);
        if (asWritten is null)
        {
            (asWritten, otherReading) = (otherReading, null);
        }

        return asWritten;
    }

    /// <summary>
    /// The type <paramref name="path"/> names read in the other order, when that is a type and not
    /// <paramref name="asRead"/> (what it names as read); <see langword="null"/> otherwise. One index reads the same both ways.
    /// </summary>
    internal Node? FindInOtherOrder(MessageIndexPath path, Node? asRead)
    {
        Node? other = path.Count == 1 ? null : Find(path.Reversed());
        return ReferenceEquals(other, asRead) ? null : other;
    }

    private static Node[] BuildLevel(IList<MessageDescriptor> types, Func<MessageDescriptor, MessageDescriptor?> readerTypeFor, bool checkWriterSchema)
    {
        var level = new Node[types.Count];
        for (int i = 0; i < level.Length; i++)
        {
            MessageDescriptor writer = types[i];
            bool mapEntry = !MessageTypePath.IsRecordType(writer);
            MessageDescriptor? reader = mapEntry ? null : readerTypeFor(writer);
            string? incompatibility = reader is not null && checkWriterSchema ? WriterSchemaCheck.FindIncompatibility(writer, reader) : null;
            level[i] = new Node(writer, reader, mapEntry, incompatibility, BuildLevel(writer.NestedTypes, readerTypeFor, checkWriterSchema));
        }

        return level;
    }

    /// <summary>One writer message type: the reader's type and parser when matched, the marker to return when skipped, its metric tag.</summary>
    internal sealed class Node
    {
        internal Node(MessageDescriptor writer, MessageDescriptor? reader, bool isMapEntry, string? incompatibility, Node[] nested)
        {
            Writer = writer;
            Reader = reader;
            IsMapEntry = isMapEntry;
            Incompatibility = incompatibility;
            Parser = incompatibility is null ? reader?.Parser : null;
            Nested = nested;
            Skipped = new SkippedMessage(writer);
            TypeTag = KafkaProtobufMetrics.TypeTag(writer.FullName);
        }

        /// <summary>The writer's message type.</summary>
        internal MessageDescriptor Writer { get; }

        /// <summary>The reader's compiled type of the same full name, or <see langword="null"/> when the reader was not given it.</summary>
        internal MessageDescriptor? Reader { get; }

        internal bool IsMapEntry { get; }

        /// <summary>Why the writer's schema cannot be read as the reader's type, when the check found a fault.</summary>
        internal string? Incompatibility { get; }

        /// <summary>The reader's parser; <see langword="null"/> for a type the reader was not given or cannot read.</summary>
        internal MessageParser? Parser { get; }

        internal Node[] Nested { get; }

        internal SkippedMessage Skipped { get; }

        internal KeyValuePair<string, object?> TypeTag { get; }
    }
}
