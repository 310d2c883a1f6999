using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf.Descriptors;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>
/// Turns a registered Protobuf schema and its references into a <see cref="FileDescriptor"/>: each reference is fetched
/// (recursively, each file once) and named after the import path the referring file uses, since the registry names
/// every serialized file <c>default</c>; well-known types come from Google.Protobuf; dependencies are built first.
/// </summary>
internal static class WriterFileBuilder
{
    internal static async Task<FileDescriptor> BuildAsync(
        RegistrySchema root, Func<RegistryReference, CancellationToken, Task<RegistrySchema>> fetch, CancellationToken cancellationToken)
    {
        var ordered = new List<ByteString>();
        var placed = new HashSet<string>(StringComparer.Ordinal);
        FileDescriptorProto rootFile = Parse(root, "the schema");
        if (string.IsNullOrEmpty(rootFile.Name) || rootFile.Name == "default")
        {
            rootFile.Name = "registry-schema-" + (root.Id?.ToString(System.Globalization.CultureInfo.InvariantCulture) ?? root.Guid?.ToString("N") ?? "root") + ".proto";
        }

        await PlaceDependenciesAsync(rootFile, root.References, fetch, ordered, placed, new HashSet<string>(StringComparer.Ordinal), cancellationToken).ConfigureAwait(false);
        ordered.Add(rootFile.ToByteString());
        try
        {
            IReadOnlyList<FileDescriptor> built = FileDescriptor.BuildFromByteStrings(ordered);
            return built[built.Count - 1];
        }
        catch (ArgumentException e)
        {
            throw new InvalidOperationException("The registry's schema does not build into a Protobuf file: " + e.Message, e);
        }
    }

    private static async Task PlaceDependenciesAsync(
        FileDescriptorProto file,
        IReadOnlyList<RegistryReference> references,
        Func<RegistryReference, CancellationToken, Task<RegistrySchema>> fetch,
        List<ByteString> ordered,
        HashSet<string> placed,
        HashSet<string> visiting,
        CancellationToken cancellationToken)
    {
        foreach (string import in file.Dependency)
        {
            if (placed.Contains(import))
            {
                continue;
            }

            if (!visiting.Add(import))
            {
                throw new InvalidOperationException("The registry's references form a cycle through " + import + ".");
            }

            RegistryReference? reference = references.FirstOrDefault(r => r.Name == import);
            if (reference is null)
            {
                if (!WellKnownFiles.TryGet(import, out FileDescriptor known))
                {
                    throw new InvalidOperationException("The schema imports " + import + ", but has no reference for it and it is not a well-known type.");
                }

                PlaceKnown(known, ordered, placed);
            }
            else
            {
                RegistrySchema dependency = await fetch(reference, cancellationToken).ConfigureAwait(false);
                FileDescriptorProto dependencyFile = Parse(dependency, reference.ToString());
                dependencyFile.Name = import; // the registry answers "default"; the importing file names it so
                await PlaceDependenciesAsync(dependencyFile, dependency.References, fetch, ordered, placed, visiting, cancellationToken).ConfigureAwait(false);
                ordered.Add(dependencyFile.ToByteString());
                placed.Add(import);
            }

            visiting.Remove(import);
        }
    }

    private static void PlaceKnown(FileDescriptor known, List<ByteString> ordered, HashSet<string> placed)
    {
        foreach (FileDescriptor dependency in known.Dependencies)
        {
            if (!placed.Contains(dependency.Name))
            {
                PlaceKnown(dependency, ordered, placed);
            }
        }

        ordered.Add(known.SerializedData);
        placed.Add(known.Name);
    }

    private static FileDescriptorProto Parse(RegistrySchema schema, string what)
    {
        if (schema.SchemaType != "PROTOBUF")
        {
            throw new InvalidOperationException(what + " is a " + schema.SchemaType + " schema, not Protobuf.");
        }

        try
        {
            return FileDescriptorProto.Parser.ParseFrom(ByteString.FromBase64(schema.Schema));
        }
        catch (Exception e) when (e is FormatException or InvalidProtocolBufferException)
        {
            throw new InvalidOperationException(what + " is not a serialized FileDescriptorProto in base64 (asked with format=serialized).", e);
        }
    }
}
