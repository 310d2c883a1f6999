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
    /// <exception cref="ArgumentException"><paramref name="path"/> is null or empty, or its files do not build (an import missing from the set).</exception>
    /// <exception cref="IOException">The file cannot be read.</exception>
    /// <exception cref="InvalidDataException">The set holds no files.</exception>
    /// <exception cref="InvalidProtocolBufferException">The file is not a descriptor set.</exception>
    public static IReadOnlyList<FileDescriptor> Read(string path)
    {
        if (string.IsNullOrEmpty(path))
        {
            throw new ArgumentException("A descriptor set's path is needed.", nameof(path));
        }

        FileDescriptorSet set = FileDescriptorSet.Parser.ParseFrom(File.ReadAllBytes(path));
        if (set.File.Count == 0)
        {
            throw new InvalidDataException(path + " holds no files: write it with protoc --include_imports --descriptor_set_out");
        }

        return FileDescriptor.BuildFromByteStrings(set.File.Select(f => f.ToByteString())).ToList().AsReadOnly();
    }
}
