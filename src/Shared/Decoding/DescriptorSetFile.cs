using System.Collections.Generic;
using System.IO;
using System.Linq;
using Google.Protobuf;
using Google.Protobuf.Reflection;

namespace KafkaProtobuf.Decoding;

/// <summary>
/// Reads the files of <c>protoc --include_imports --descriptor_set_out=FILE</c> (imports before the files that import
/// them, so the file asked for is last). Linked source: the tool's <c>--descriptor-set</c> and the operations page's
/// <c>AddDescriptorSet</c> read sets the one way.
/// </summary>
internal static class DescriptorSetFile
{
    /// <exception cref="IOException">The file cannot be read.</exception>
    /// <exception cref="InvalidDataException">The set is empty.</exception>
    /// <exception cref="InvalidProtocolBufferException">The file is not a descriptor set.</exception>
    public static IReadOnlyList<FileDescriptor> Read(string path)
    {
        FileDescriptorSet set = FileDescriptorSet.Parser.ParseFrom(File.ReadAllBytes(path));
        if (set.File.Count == 0)
        {
            throw new InvalidDataException($"{path} holds no files: write it with protoc --include_imports --descriptor_set_out");
        }

        return FileDescriptor.BuildFromByteStrings(set.File.Select(f => f.ToByteString()));
    }
}
