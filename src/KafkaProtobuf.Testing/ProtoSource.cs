extern alias ProtobufNet;

using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Google.Protobuf.Reflection;
using KafkaProtobuf.SchemaRegistry;
using NetReflection = ProtobufNet::Google.Protobuf.Reflection;

namespace KafkaProtobuf.Testing;

/// <summary>
/// Compiles .proto text into descriptors with protobuf-net.Reflection, the parser Confluent's .NET serdes use, as a
/// registry compiles what clients register: imports are read through a callback (a registry's references, a directory
/// search), well-known imports (<c>google/protobuf/*.proto</c>) are built in when the callback has none. Text that does not compile is a
/// <see cref="ProtoSyntaxException"/> naming the file, line and column of each error.
/// </summary>
public static class ProtoSource
{
    /// <summary>
    /// How deep braces may nest in one file (messages in messages, option values): 64. Text nested deeper is refused
    /// before it is parsed, since the parser descends once per level; 64 keeps the compiled descriptor within the
    /// nesting Google.Protobuf reads by default (100), so every client can read what a registry serves.
    /// </summary>
    public const int MaxNesting = 64;

    /// <summary>Compiles one file and what it imports.</summary>
    /// <param name="fileName">The file's name, as imports and errors name it (e.g. <c>orders/order.proto</c>).</param>
    /// <param name="text">Its text.</param>
    /// <param name="readImport">
    /// The text of an imported file by its import path, or <see langword="null"/> when there is none; asked for every
    /// import once, well-known ones too (<c>google/protobuf/timestamp.proto</c>: built in when it answers none).
    /// </param>
    /// <returns>The files in dependency order, <paramref name="fileName"/> last.</returns>
    /// <exception cref="ProtoSyntaxException">The text, or an import's, does not compile, an import cannot be found, or braces nest deeper than <see cref="MaxNesting"/>.</exception>
    public static FileDescriptorSet Compile(string fileName, string text, Func<string, string?>? readImport = null)
    {
        if (fileName is null)
        {
            throw new ArgumentNullException(nameof(fileName));
        }

        if (text is null)
        {
            throw new ArgumentNullException(nameof(text));
        }

        CheckNesting(fileName, text);
        var imports = new ImportReader(readImport);
        var set = new NetReflection.FileDescriptorSet { FileSystem = imports };
        set.AddImportPath(string.Empty);
        set.Add(fileName, true, new StringReader(text));
        try
        {
            set.Process();
        }
        catch (ProtoSyntaxException)
        {
            throw;
        }
        catch (Exception e) when (e is not OutOfMemoryException)
        {
            // protobuf-net reports what it understands as errors; anything else it threw is the text's fault too.
            throw new ProtoSyntaxException(fileName, 0, 0, [fileName + ": cannot be compiled: " + BoundedText.Cut(e.Message, 500)]);
        }

        var errors = set.GetErrors().Where(e => e.IsError).ToList();
        if (errors.Count > 0)
        {
            var first = errors[0];
            throw new ProtoSyntaxException(
                first.File ?? fileName,
                first.LineNumber,
                first.ColumnNumber,
                errors.Select(e => (e.File ?? fileName) + ":" + e.LineNumber + ":" + e.ColumnNumber + ": " + BoundedText.Cut(e.Message, 500)).ToList());
        }

        using var bytes = new MemoryStream();
        set.Serialize(NetReflection.FileDescriptorSet.Serializer, bytes, true);
        return InDependencyOrder(FileDescriptorSet.Parser.ParseFrom(bytes.ToArray()), fileName);
    }

    /// <summary>
    /// The files each after what it imports, the compiled file last (as <see cref="ProtoSchema.Of(FileDescriptorSet)"/>
    /// and readers of descriptor sets expect). Done here, without recursion, because an import cycle (protoc refuses
    /// one) would otherwise recurse without end.
    /// </summary>
    private static FileDescriptorSet InDependencyOrder(FileDescriptorSet compiled, string fileName)
    {
        var byName = new Dictionary<string, FileDescriptorProto>(StringComparer.Ordinal);
        foreach (FileDescriptorProto file in compiled.File)
        {
            byName[file.Name] = file;
        }

        var ordered = new FileDescriptorSet();
        var done = new HashSet<string>(StringComparer.Ordinal);
        var onPath = new List<string>();
        var stack = new Stack<(FileDescriptorProto File, int Next)>();
        stack.Push((byName[fileName], 0));
        onPath.Add(fileName);
        while (stack.Count > 0)
        {
            (FileDescriptorProto file, int next) = stack.Pop();
            if (next < file.Dependency.Count)
            {
                stack.Push((file, next + 1));
                string import = file.Dependency[next];
                if (onPath.Contains(import))
                {
                    string cycle = string.Join(" -> ", onPath.Skip(onPath.IndexOf(import)).Append(import));
                    throw new ProtoSyntaxException(file.Name, 0, 0, [BoundedText.Cut(file.Name + ": imports itself through " + cycle, 1000)]);
                }

                if (!done.Contains(import) && byName.TryGetValue(import, out FileDescriptorProto? imported))
                {
                    stack.Push((imported, 0));
                    onPath.Add(import);
                }

                continue;
            }

            onPath.RemoveAt(onPath.Count - 1);
            if (done.Add(file.Name))
            {
                ordered.File.Add(file);
            }
        }

        return ordered;
    }

    /// <summary>Compiles one file into a schema for <see cref="ProtobufCompatibility"/>.</summary>
    /// <param name="text">The file's text.</param>
    /// <param name="imports">The files it imports, by import path; well-known imports need not be given.</param>
    /// <param name="fileName">The file's name.</param>
    /// <returns>The schema.</returns>
    /// <exception cref="ProtoSyntaxException">The text, or an import's, does not compile.</exception>
    public static ProtoSchema Schema(string text, IReadOnlyDictionary<string, string>? imports = null, string fileName = "schema.proto") =>
        ProtoSchema.Of(Compile(fileName, text, imports is null ? null : name => imports.TryGetValue(name, out string? found) ? found : null), fileName);

    /// <summary>Refuses text whose braces nest deeper than <see cref="MaxNesting"/>, skipping strings and comments.</summary>
    internal static void CheckNesting(string fileName, string text)
    {
        int depth = 0, line = 1, column = 0;
        for (int i = 0; i < text.Length; i++)
        {
            char c = text[i];
            column++;
            switch (c)
            {
                case '\n':
                    line++;
                    column = 0;
                    break;
                case '/' when i + 1 < text.Length && text[i + 1] == '/':
                    while (i + 1 < text.Length && text[i + 1] != '\n')
                    {
                        i++;
                    }

                    break;
                case '/' when i + 1 < text.Length && text[i + 1] == '*':
                    for (i += 2; i < text.Length && !(text[i] == '*' && i + 1 < text.Length && text[i + 1] == '/'); i++)
                    {
                        if (text[i] == '\n')
                        {
                            line++;
                            column = 0;
                        }
                    }

                    i++;
                    break;
                case '"' or '\'':
                    for (i++; i < text.Length && text[i] != c && text[i] != '\n'; i++)
                    {
                        if (text[i] == '\\')
                        {
                            i++;
                        }
                    }

                    break;
                case '{':
                    if (++depth > MaxNesting)
                    {
                        throw new ProtoSyntaxException(fileName, line, column, [fileName + ":" + line + ":" + column + ": braces nest deeper than " + MaxNesting]);
                    }

                    break;
                case '}':
                    depth--;
                    break;
            }
        }
    }

    /// <summary>protobuf-net's view of the imports: the callback, each file's nesting checked before it is parsed.</summary>
    private sealed class ImportReader(Func<string, string?>? readImport) : NetReflection.IFileSystem
    {
        private readonly Dictionary<string, string?> _read = new(StringComparer.Ordinal);

        public bool Exists(string path) => Read(path) is not null;

        public TextReader? OpenText(string path) => Read(path) is { } text ? new StringReader(text) : null;

        private string? Read(string path)
        {
            if (!_read.TryGetValue(path, out string? text))
            {
                text = readImport?.Invoke(path);
                if (text is not null)
                {
                    CheckNesting(path, text);
                }

                _read.Add(path, text);
            }

            return text;
        }
    }
}
