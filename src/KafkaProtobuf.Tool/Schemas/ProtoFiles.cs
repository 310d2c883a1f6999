using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf.Testing;

namespace KafkaProtobuf.Tool.Schemas;

/// <summary>
/// .proto files on disk compiled as protoc compiles them for generated code: each named by its path below the import
/// root that holds it (<c>--proto-path</c>, as protoc's <c>-I</c>), its imports looked up in the roots, then in its own
/// folder, Google's well-known files built in. Each descriptor is in the form generated code embeds (no source info, a
/// JSON name only where the file sets one), so what the tool registers is byte for byte what a serializer of the
/// generated type registers or looks up.
/// </summary>
internal static class ProtoFiles
{
    /// <summary>Each file with its imports: from the descriptor sets when any are given (<see cref="FromDescriptorSets"/>), else compiled.</summary>
    public static IReadOnlyList<FileDescriptor> Load(IReadOnlyList<string> paths, IReadOnlyList<string> importRoots, IReadOnlyList<string> sets) =>
        sets.Count > 0 ? FromDescriptorSets(paths, importRoots, sets) : Compile(paths, importRoots);

    /// <summary>Compiles each file with its imports.</summary>
    /// <exception cref="ProtoSyntaxException">A file or an import does not compile, or an import is not found.</exception>
    /// <exception cref="IOException">A file cannot be read.</exception>
    /// <exception cref="ArgumentException">A set that does not build (an import's types clash).</exception>
    public static IReadOnlyList<FileDescriptor> Compile(IReadOnlyList<string> paths, IReadOnlyList<string> importRoots)
    {
        string[] roots = importRoots.Select(Path.GetFullPath).ToArray();
        var files = new List<FileDescriptor>(paths.Count);
        foreach (string path in paths)
        {
            string full = Path.GetFullPath(path);
            (string name, string[] searched) = NameAndRoots(full, roots);
            FileDescriptorSet compiled = CompileSet(name, File.ReadAllText(full), searched);
            IReadOnlyList<FileDescriptor> built = FileDescriptor.BuildFromByteStrings(compiled.File.Select(f => f.ToByteString()));
            files.Add(built[built.Count - 1]);
        }

        return files;
    }

    /// <summary>
    /// The files these paths name (by their path below the roots, as protoc names them), taken from protoc descriptor
    /// sets instead of compiled: the compiler of the generated code, in the form it embeds them.
    /// </summary>
    /// <exception cref="InvalidDataException">A set cannot be read.</exception>
    /// <exception cref="ArgumentException">No set holds a file, or the sets do not build.</exception>
    public static IReadOnlyList<FileDescriptor> FromDescriptorSets(IReadOnlyList<string> paths, IReadOnlyList<string> importRoots, IReadOnlyList<string> sets)
    {
        FileDescriptorSet merged = ReadDescriptorSets(sets);
        IReadOnlyList<FileDescriptor> built = FileDescriptor.BuildFromByteStrings(merged.File.Select(f => AsGenerated(f).ToByteString()));
        return paths.Select(path =>
        {
            string name = NameOf(Path.GetFullPath(path), importRoots);
            return built.FirstOrDefault(f => f.Name == name)
                ?? throw new ArgumentException("the descriptor sets hold no file named " + name + " (" + path + ")");
        }).ToList();
    }

    /// <summary>Every file of protoc descriptor sets, once by name (protoc writes a shared import into each set).</summary>
    /// <exception cref="InvalidDataException">A set cannot be read.</exception>
    public static FileDescriptorSet ReadDescriptorSets(IReadOnlyList<string> paths)
    {
        var merged = new FileDescriptorSet();
        foreach (string path in paths)
        {
            FileDescriptorSet set;
            try
            {
                set = FileDescriptorSet.Parser.ParseFrom(File.ReadAllBytes(path));
            }
            catch (InvalidProtocolBufferException e)
            {
                throw new InvalidDataException(path + " is not a descriptor set: " + e.Message, e);
            }

            merged.File.AddRange(set.File.Where(f => merged.File.All(known => known.Name != f.Name)));
        }

        return merged;
    }

    /// <summary>
    /// The file an import path names, found in the first root that has it, compiled with its imports (last in the set),
    /// or <see langword="null"/> when no root has it.
    /// </summary>
    /// <exception cref="ProtoSyntaxException">The file or an import does not compile, or an import is not found.</exception>
    /// <exception cref="IOException">The file cannot be read.</exception>
    public static FileDescriptorSet? CompileByName(string name, IReadOnlyList<string> importRoots)
    {
        string[] roots = importRoots.Select(Path.GetFullPath).ToArray();
        string? path = roots.Select(root => Path.Combine(root, name)).FirstOrDefault(File.Exists);
        return path is null ? null : CompileSet(name, File.ReadAllText(path), roots);
    }

    /// <summary>Where a file an import path names is on disk: below the first root that has it, or <see langword="null"/>.</summary>
    public static string? Locate(string name, IReadOnlyList<string> importRoots) =>
        importRoots.Select(root => Path.GetFullPath(Path.Combine(root, name))).FirstOrDefault(File.Exists);

    private static FileDescriptorSet CompileSet(string name, string text, string[] roots)
    {
        FileDescriptorSet compiled = ProtoSource.Compile(name, text, import =>
            roots.Select(root => Path.Combine(root, import)).Where(File.Exists).Select(File.ReadAllText).FirstOrDefault());
        var generated = new FileDescriptorSet();
        generated.File.AddRange(compiled.File.Select(AsGenerated));
        return generated;
    }

    /// <summary>A file's name as imports spell it: its path below the first root that holds it (forward slashes), else its file name.</summary>
    public static string NameOf(string fullPath, IReadOnlyList<string> roots) => NameAndRoots(fullPath, roots.Select(Path.GetFullPath).ToArray()).Name;

    /// <summary>
    /// The file's name as imports spell it (its path below the first root that holds it, with forward slashes; else its
    /// file name), and the folders its imports are looked up in.
    /// </summary>
    private static (string Name, string[] Roots) NameAndRoots(string fullPath, string[] roots)
    {
        foreach (string root in roots)
        {
            string relative = Path.GetRelativePath(root, fullPath);
            if (!relative.StartsWith("..", StringComparison.Ordinal) && !Path.IsPathRooted(relative))
            {
                return (relative.Replace(Path.DirectorySeparatorChar, '/'), roots);
            }
        }

        return (Path.GetFileName(fullPath), [.. roots, Path.GetDirectoryName(fullPath) ?? "."]);
    }

    /// <summary>
    /// The descriptor as protoc embeds it in generated code: the compiler records every field's JSON name and may add
    /// source info; protoc's generated code keeps neither unless the file set a JSON name of its own.
    /// </summary>
    private static FileDescriptorProto AsGenerated(FileDescriptorProto file)
    {
        FileDescriptorProto copy = file.Clone();
        copy.SourceCodeInfo = null;
        List<FieldDescriptorProto> fields = [.. copy.Extension, .. copy.MessageType.SelectMany(FieldsOf)];
        Dictionary<string, string> defaults = DefaultJsonNames(fields.Select(f => f.Name));
        foreach (FieldDescriptorProto field in fields)
        {
            if (field.HasJsonName && field.JsonName == defaults[field.Name])
            {
                field.ClearJsonName();
            }
        }

        return copy;
    }

    private static IEnumerable<FieldDescriptorProto> FieldsOf(DescriptorProto message) =>
        message.Field.Concat(message.Extension).Concat(message.NestedType.SelectMany(FieldsOf));

    /// <summary>
    /// Each name's default JSON name, as Google.Protobuf derives it (protoc's rule) for a field that sets none: read
    /// off a descriptor built for the purpose, so that the rule is the runtime's own.
    /// </summary>
    private static Dictionary<string, string> DefaultJsonNames(IEnumerable<string> names)
    {
        var message = new DescriptorProto { Name = "Names" };
        foreach (string name in names.Distinct(StringComparer.Ordinal))
        {
            message.Field.Add(new FieldDescriptorProto
            {
                Name = name,
                Number = message.Field.Count + 1,
                Type = FieldDescriptorProto.Types.Type.Int32,
                Label = FieldDescriptorProto.Types.Label.Optional,
            });
        }

        var file = new FileDescriptorProto { Name = "json-names.proto", MessageType = { message } };
        MessageDescriptor built = FileDescriptor.BuildFromByteStrings([file.ToByteString()])[0].MessageTypes[0];
        return built.Fields.InDeclarationOrder().ToDictionary(f => f.Name, f => f.JsonName, StringComparer.Ordinal);
    }
}
