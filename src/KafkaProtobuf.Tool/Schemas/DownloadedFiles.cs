using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using KafkaProtobuf.SchemaRegistry;

namespace KafkaProtobuf.Tool.Schemas;

/// <summary>
/// The .proto files a download writes, each at the path its importers name it by, checked before anything is written:
/// paths come from the registry (subjects, reference names) and are untrusted, so one that would leave the folder, or
/// two schemas at one path, stop the download with nothing written. A subject's schema that is also imported (the same
/// schema id) is written once, at its import path: two copies would define every type twice.
/// </summary>
internal sealed class DownloadedFiles
{
    private readonly Dictionary<string, (string Text, List<string> From)> _files = new(StringComparer.Ordinal);
    private readonly Dictionary<int, string> _importPaths = new();
    private readonly List<(string Subject, RegistrySchema Schema, string From)> _subjects = [];

    /// <summary>A schema imported by the path <paramref name="path"/> (a reference's name).</summary>
    /// <exception cref="InvalidDataException">The path is not a safe relative path, or another schema is already there.</exception>
    public void AddImport(string path, RegistrySchema schema, string from)
    {
        Add(path, schema.Schema, from);
        if (schema.Id is { } id)
        {
            _importPaths.TryAdd(id, path);
        }
    }

    /// <summary>A subject's own schema: written at its import path if it is imported too, else at <see cref="PathOfSubject"/>.</summary>
    public void AddSubject(string subject, RegistrySchema schema, string from) => _subjects.Add((subject, schema, from));

    /// <summary>Writes every file below <paramref name="folder"/>, creating folders as needed; nothing when a path is refused.</summary>
    /// <returns>Each file written with the subjects and versions it holds.</returns>
    /// <exception cref="InvalidDataException">A path is not a safe relative path, or two schemas would share one.</exception>
    public IReadOnlyList<(string Path, string From)> WriteTo(string folder)
    {
        foreach ((string subject, RegistrySchema schema, string from) in _subjects)
        {
            string path = schema.Id is { } id && _importPaths.TryGetValue(id, out string? imported) ? imported : PathOfSubject(subject);
            Add(path, schema.Schema, from);
        }

        _subjects.Clear();
        string root = Path.GetFullPath(folder);
        var written = new List<(string, string)>();
        foreach (KeyValuePair<string, (string Text, List<string> From)> file in _files.OrderBy(f => f.Key, StringComparer.Ordinal))
        {
            string target = Path.GetFullPath(Path.Combine(root, file.Key));
            Directory.CreateDirectory(Path.GetDirectoryName(target)!);
            File.WriteAllText(target, file.Value.Text);
            written.Add((file.Key, string.Join("; ", file.Value.From.Order(StringComparer.Ordinal))));
        }

        return written;
    }

    /// <summary>The path a subject's own schema is written at: the subject itself when it is a file's import path, else the subject with .proto.</summary>
    public static string PathOfSubject(string subject) =>
        subject.EndsWith(".proto", StringComparison.Ordinal) && IsSafe(subject)
            ? subject
            : new string(subject.Select(c => char.IsLetterOrDigit(c) || c is '-' or '_' or '.' ? c : '_').ToArray()).TrimStart('.') + ".proto";

    private void Add(string path, string text, string from)
    {
        if (!IsSafe(path))
        {
            throw new InvalidDataException("the registry names a file '" + BoundedText.Cut(path, 200) + "' (" + from + ") that cannot be written below the output folder: a path is relative, with '/' between names, and no name is empty, '.' or '..'");
        }

        if (_files.TryGetValue(path, out (string Text, List<string> From) known))
        {
            if (known.Text != text)
            {
                throw new InvalidDataException("two schemas would be written to " + path + " (" + known.From[0] + " and " + from + "): download them into separate folders");
            }

            if (!known.From.Contains(from))
            {
                known.From.Add(from);
            }

            return;
        }

        _files.Add(path, (text, [from]));
    }

    private static bool IsSafe(string path) =>
        path.Length is > 0 and <= 1024
        && path.Split('/').All(name => name.Length > 0 && name is not ("." or "..")
            && name.All(c => !char.IsControl(c) && c is not ('\\' or ':' or '*' or '?' or '"' or '<' or '>' or '|')));
}
