using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Google.Protobuf;
using Google.Protobuf.Reflection;

namespace KafkaProtobuf.Decoding;

/// <summary>
/// Reads the files of <c>protoc --include_imports --descriptor_set_out=FILE</c>: imports before the files that import
/// them, so the file asked for is the last.
/// </summary>
public static class DescriptorSetFile
{
    /// <summary>Reads a descriptor set's files, built with their imports.</summary>
    /// <param name="path">The descriptor set's path.</param>
    /// <returns>Its files, in the set's order (the last is the one protoc was asked for).</returns>
    /// <exception cref="ArgumentException"><paramref name="path"/> is null or empty.</exception>
    /// <exception cref="IOException">The file cannot be read.</exception>
    /// <exception cref="InvalidDataException">
    /// The file is not a usable descriptor set: not one at all, no files in it, or files that do not build (an import
    /// missing from the set, a name declared twice); the parser's or builder's exception is the inner one.
    /// </exception>
    public static IReadOnlyList<FileDescriptor> Read(string path)
    {
        if (string.IsNullOrEmpty(path))
        {
            throw new ArgumentException("A descriptor set's path is needed.", nameof(path));
        }

        byte[] bytes = File.ReadAllBytes(path);
        FileDescriptorSet set;
        try
        {
            set = FileDescriptorSet.Parser.ParseFrom(bytes);
        }
        catch (InvalidProtocolBufferException e)
        {
            throw new InvalidDataException(path + " is not a descriptor set: " + e.Message, e);
        }

        if (set.File.Count == 0)
        {
            throw new InvalidDataException(path + " holds no files: write it with protoc --include_imports --descriptor_set_out");
        }

        try
        {
            return FileDescriptor.BuildFromByteStrings(set.File.Select(f => f.ToByteString())).ToList().AsReadOnly();
        }
        catch (ArgumentException e)
        {
            throw new InvalidDataException(path + "'s files do not build (write it with protoc --include_imports): " + e.Message, e);
        }
    }
}
