using System;
using System.Collections.Generic;
using System.Linq;
using Google.Protobuf.Reflection;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>
/// A Protobuf schema as compatibility is checked on it: one .proto file's descriptor and the files it imports (its
/// references), whose types its fields may name.
/// </summary>
public sealed class ProtoSchema
{
    private ProtoSchema(FileDescriptorProto file, IReadOnlyList<FileDescriptorProto> dependencies)
    {
        File = file;
        Dependencies = dependencies;
        Types = new TypeTable(file, dependencies);
    }

    /// <summary>The schema's own file.</summary>
    public FileDescriptorProto File { get; }

    /// <summary>The files it imports, directly or not.</summary>
    public IReadOnlyList<FileDescriptorProto> Dependencies { get; }

    internal TypeTable Types { get; }

    /// <summary>A generated type's file (<c>Order.Descriptor.File</c>) and everything it imports.</summary>
    /// <param name="file">The file descriptor.</param>
    /// <returns>The schema.</returns>
    public static ProtoSchema Of(FileDescriptor file)
    {
        if (file is null)
        {
            throw new ArgumentNullException(nameof(file));
        }

        var dependencies = new List<FileDescriptorProto>();
        var seen = new HashSet<string>(StringComparer.Ordinal) { file.Name };
        var pending = new Stack<FileDescriptor>(file.Dependencies);
        while (pending.Count > 0)
        {
            FileDescriptor dependency = pending.Pop();
            if (seen.Add(dependency.Name))
            {
                dependencies.Add(ProtoOf(dependency));
                foreach (FileDescriptor next in dependency.Dependencies)
                {
                    pending.Push(next);
                }
            }
        }

        return new ProtoSchema(ProtoOf(file), dependencies);
    }

    /// <summary>
    /// The last file of a descriptor set (what <c>protoc --include_imports --descriptor_set_out</c> writes: the file protoc
    /// was given comes last), the others being what it may import.
    /// </summary>
    /// <param name="set">The descriptor set.</param>
    /// <returns>The schema.</returns>
    /// <exception cref="ArgumentException">The set is empty.</exception>
    public static ProtoSchema Of(FileDescriptorSet set)
    {
        if (set is null)
        {
            throw new ArgumentNullException(nameof(set));
        }

        return set.File.Count == 0 ? throw new ArgumentException("The descriptor set holds no file.", nameof(set)) : Of(set, set.File[set.File.Count - 1].Name);
    }

    /// <summary>The file of a descriptor set named <paramref name="fileName"/>, the others being what it may import.</summary>
    /// <param name="set">The descriptor set.</param>
    /// <param name="fileName">The schema's file name, as the set names it.</param>
    /// <returns>The schema.</returns>
    /// <exception cref="ArgumentException">The set holds no file of that name.</exception>
    public static ProtoSchema Of(FileDescriptorSet set, string fileName)
    {
        if (set is null)
        {
            throw new ArgumentNullException(nameof(set));
        }

        FileDescriptorProto file = set.File.LastOrDefault(f => string.Equals(f.Name, fileName, StringComparison.Ordinal))
            ?? throw new ArgumentException("The descriptor set holds no file named '" + BoundedText.Cut(fileName, 200) + "'; it holds " + BoundedText.Cut(string.Join(", ", set.File.Select(f => f.Name))) + ".", nameof(fileName));
        return new ProtoSchema(file, set.File.Where(f => !ReferenceEquals(f, file)).ToList());
    }

    private static FileDescriptorProto ProtoOf(FileDescriptor file) => FileDescriptorProto.Parser.ParseFrom(file.SerializedData);

    /// <summary>A file's descriptor and the files it imports.</summary>
    /// <param name="file">The schema's file.</param>
    /// <param name="dependencies">The files it imports, directly or not.</param>
    /// <returns>The schema.</returns>
    public static ProtoSchema Of(FileDescriptorProto file, IEnumerable<FileDescriptorProto> dependencies) =>
        new(file ?? throw new ArgumentNullException(nameof(file)), (dependencies ?? throw new ArgumentNullException(nameof(dependencies))).ToList());
}
