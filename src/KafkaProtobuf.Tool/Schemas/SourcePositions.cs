using System;
using System.Collections.Generic;
using System.Linq;
using Google.Protobuf.Reflection;

namespace KafkaProtobuf.Tool.Schemas;

/// <summary>
/// Where a compatibility difference is in the new .proto files: its path (<c>#/Order/Line/2</c>, as Schema Registry
/// writes it) walked through the descriptors to the element, and the element's line and column read from the source
/// positions protoc records (<c>--include_source_info</c>). A removed element points at the nearest one that is still
/// there (a removed field at its message); a package change at the package statement.
/// </summary>
internal static class SourcePositions
{
    // Field numbers of descriptor.proto, as source-code-info paths use them.
    private const int FilePackage = 2;
    private const int FileMessage = 4;
    private const int FileEnum = 5;
    private const int MessageField = 2;
    private const int MessageNested = 3;
    private const int MessageEnum = 4;
    private const int MessageOneof = 8;
    private const int EnumValue = 2;

    /// <summary>The file, line and column (from 1) of the element a difference names, or null when no file of the set carries source positions for it.</summary>
    public static (string File, int Line, int Column)? Find(FileDescriptorSet set, string rootFile, string differencePath)
    {
        string[] segments = differencePath.StartsWith("#/", StringComparison.Ordinal)
            ? differencePath.Substring(2).Split('/', StringSplitOptions.RemoveEmptyEntries)
            : [];
        FileDescriptorProto? root = set.File.LastOrDefault(f => f.Name == rootFile);
        IEnumerable<FileDescriptorProto> files = root is null ? set.File : set.File.Where(f => !ReferenceEquals(f, root)).Prepend(root);
        foreach (FileDescriptorProto file in files)
        {
            if (file.SourceCodeInfo is null)
            {
                continue;
            }

            List<int>? path = segments.Length == 0 ? (ReferenceEquals(file, root) ? [FilePackage] : null) : Resolve(file, segments);
            if (path is not null && Locate(file, path) is { } position)
            {
                return (file.Name, position.Line, position.Column);
            }
        }

        return null;
    }

    /// <summary>The source path of the deepest element the segments name in the file; null when the first names no type of it.</summary>
    private static List<int>? Resolve(FileDescriptorProto file, string[] segments)
    {
        var path = new List<int>();
        DescriptorProto? message = null;
        EnumDescriptorProto? enumType = null;
        int oneof = -1; // where a oneof's steps start in the path: its fields are the message's
        foreach (string segment in segments)
        {
            if (int.TryParse(segment, System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out int number))
            {
                int index = message is not null ? message.Field.ToList().FindIndex(f => f.Number == number)
                    : enumType is not null ? enumType.Value.ToList().FindIndex(v => v.Number == number)
                    : -1;
                if (index >= 0)
                {
                    if (oneof >= 0)
                    {
                        path.RemoveRange(oneof, 2);
                    }

                    path.Add(message is not null ? MessageField : EnumValue);
                    path.Add(index);
                }

                break; // a number ends a path
            }

            if (message is null && enumType is null && path.Count == 0)
            {
                if (Step(file.MessageType.Select(m => m.Name), segment, FileMessage, path) is { } top)
                {
                    message = file.MessageType[top];
                }
                else if (Step(file.EnumType.Select(e => e.Name), segment, FileEnum, path) is { } topEnum)
                {
                    enumType = file.EnumType[topEnum];
                }
                else
                {
                    return null; // not a type of this file
                }
            }
            else if (message is not null)
            {
                if (Step(message.NestedType.Select(m => m.Name), segment, MessageNested, path) is { } nested)
                {
                    message = message.NestedType[nested];
                }
                else if (Step(message.EnumType.Select(e => e.Name), segment, MessageEnum, path) is { } nestedEnum)
                {
                    enumType = message.EnumType[nestedEnum];
                    message = null;
                }
                else
                {
                    int before = path.Count;
                    if (Step(message.OneofDecl.Select(o => o.Name), segment, MessageOneof, path) is null)
                    {
                        break; // removed, or renamed: the message is the nearest element left
                    }

                    oneof = before;
                }
            }
            else
            {
                break;
            }
        }

        return path;
    }

    private static int? Step(IEnumerable<string> names, string segment, int field, List<int> path)
    {
        int index = names.ToList().IndexOf(segment);
        if (index < 0)
        {
            return null;
        }

        path.Add(field);
        path.Add(index);
        return index;
    }

    /// <summary>The position of the path's element, or of its nearest enclosing one that has one.</summary>
    private static (int Line, int Column)? Locate(FileDescriptorProto file, List<int> path)
    {
        var spans = new Dictionary<string, IList<int>>(StringComparer.Ordinal);
        foreach (SourceCodeInfo.Types.Location location in file.SourceCodeInfo.Location)
        {
            spans.TryAdd(string.Join(",", location.Path), location.Span);
        }

        for (int length = path.Count; length >= 0; length--)
        {
            string key = string.Join(",", path.Take(length));
            if (spans.TryGetValue(key, out IList<int>? span) && span.Count >= 3)
            {
                return (span[0] + 1, span[1] + 1); // protoc counts from 0
            }
        }

        return null;
    }
}
