using System;
using System.Collections.Generic;
using System.Linq;
using Google.Protobuf;
using Google.Protobuf.Reflection;

namespace KafkaProtobuf.Tests.Support;

/// <summary>
/// A writer's .proto file as a schema registry hands it back: rebuilt from a <see cref="FileDescriptorProto"/>, its own
/// descriptors, not the generated ones; optionally edited (messages reordered, a field's type changed).
/// </summary>
public static class WriterFile
{
    public static FileDescriptor From(FileDescriptor generated, Action<FileDescriptorProto>? edit = null)
    {
        FileDescriptorProto proto = FileDescriptorProto.Parser.ParseFrom(generated.SerializedData);
        edit?.Invoke(proto);
        var files = new List<ByteString>();
        AddDependencies(generated, files, new HashSet<string>());
        files.Add(proto.ToByteString());
        IReadOnlyList<FileDescriptor> built = FileDescriptor.BuildFromByteStrings(files);
        return built[built.Count - 1];
    }

    /// <summary>Declares the top-level messages in the given order (by name); the rest keep theirs, after them.</summary>
    public static Action<FileDescriptorProto> Reorder(params string[] first) => proto =>
    {
        List<DescriptorProto> ordered = first.Select(name => proto.MessageType.Single(m => m.Name == name))
            .Concat(proto.MessageType.Where(m => !first.Contains(m.Name)))
            .ToList();
        proto.MessageType.Clear();
        proto.MessageType.AddRange(ordered);
    };

    private static void AddDependencies(FileDescriptor file, List<ByteString> files, HashSet<string> seen)
    {
        foreach (FileDescriptor dependency in file.Dependencies)
        {
            if (seen.Add(dependency.Name))
            {
                AddDependencies(dependency, files, seen);
                files.Add(dependency.SerializedData);
            }
        }
    }
}
