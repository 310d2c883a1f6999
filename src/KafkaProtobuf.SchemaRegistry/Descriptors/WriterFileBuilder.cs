using System;
using System.Collections.Generic;
using System.Globalization;
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
/// Whatever in the answers keeps it from being a file (not Protobuf, not a descriptor, an import without a reference, a
/// cycle, a file that does not build, a reference the registry refuses, past the limits) is an
/// <see cref="UnusableSchemaException"/>: the same answers would give the same result, so the schema's records are bad
/// data. A failure to ask (a timeout, a 5xx) is thrown as it is.
/// </summary>
internal sealed class WriterFileBuilder
{
    private readonly SchemaIdentifier _schemaId;
    private readonly Func<RegistryReference, CancellationToken, Task<RegistrySchema>> _fetch;
    private readonly ReferenceLimits _limits;
    private readonly List<ByteString> _ordered = [];
    private readonly HashSet<string> _placed = new(StringComparer.Ordinal);
    private readonly HashSet<string> _visiting = new(StringComparer.Ordinal);
    private long _bytes;
    private int _references;

    private WriterFileBuilder(SchemaIdentifier schemaId, Func<RegistryReference, CancellationToken, Task<RegistrySchema>> fetch, ReferenceLimits limits)
    {
        _schemaId = schemaId;
        _fetch = fetch;
        _limits = limits;
    }

    /// <exception cref="UnusableSchemaException">The answers do not make a Protobuf file.</exception>
    /// <exception cref="SchemaRegistryRequestException">A reference could not be fetched (an outage: the registry could not be asked, or failed).</exception>
    internal static Task<FileDescriptor> BuildAsync(
        SchemaIdentifier schemaId, RegistrySchema root, Func<RegistryReference, CancellationToken, Task<RegistrySchema>> fetch, ReferenceLimits limits, CancellationToken cancellationToken) =>
        new WriterFileBuilder(schemaId, fetch, limits).BuildAsync(root, cancellationToken);

    /// <summary>
    /// Whether a failed request's error is the registry's answer about what was asked, which asking again would only
    /// repeat (a 2xx it could not read, or a 4xx with the registry's own error code but 401, 403, 408 and 429), rather
    /// than a failure to ask.
    /// </summary>
    internal static bool IsFinalAnswer(SchemaRegistryRequestException e) =>
        e is not SchemaRegistryAuthenticationException
        && (e.StatusCode is >= 200 and < 300 || (e.StatusCode is >= 400 and < 500 and not 408 and not 429 && e.ErrorCode is not null));

    private async Task<FileDescriptor> BuildAsync(RegistrySchema root, CancellationToken cancellationToken)
    {
        FileDescriptorProto rootFile = Parse(root, "the schema");
        if (string.IsNullOrEmpty(rootFile.Name) || rootFile.Name == "default")
        {
            rootFile.Name = "registry-schema-" + (root.Id?.ToString(CultureInfo.InvariantCulture) ?? root.Guid?.ToString("N") ?? "root") + ".proto";
        }

        await PlaceDependenciesAsync(rootFile, root.References, 1, cancellationToken).ConfigureAwait(false);
        _ordered.Add(rootFile.ToByteString());
        try
        {
            IReadOnlyList<FileDescriptor> built = FileDescriptor.BuildFromByteStrings(_ordered);
            return built[built.Count - 1];
        }
        catch (Exception e) when (e is not OutOfMemoryException)
        {
            // DescriptorValidationException or ArgumentException as a rule; whatever Google.Protobuf throws, these bytes caused it.
            throw Unusable("its descriptor does not build: " + e.Message, e);
        }
    }

    private async Task PlaceDependenciesAsync(FileDescriptorProto file, IReadOnlyList<RegistryReference> references, int depth, CancellationToken cancellationToken)
    {
        foreach (string import in file.Dependency)
        {
            if (_placed.Contains(import))
            {
                continue;
            }

            if (!_visiting.Add(import))
            {
                throw Unusable("its references form a cycle through " + import, null);
            }

            RegistryReference? reference = references.FirstOrDefault(r => r.Name == import);
            if (reference is null)
            {
                if (!WellKnownFiles.TryGet(import, out FileDescriptor known))
                {
                    throw Unusable("it imports " + import + " but has no reference for it, and it is not a well-known type", null);
                }

                PlaceKnown(known);
            }
            else
            {
                if (depth > _limits.MaxDepth)
                {
                    throw Unusable("its references import one another deeper than MaxReferenceDepth (" + _limits.MaxDepth.ToString(CultureInfo.InvariantCulture) + ")", null);
                }

                if (++_references > _limits.MaxReferences)
                {
                    throw Unusable("it pulls in more than MaxReferences (" + _limits.MaxReferences.ToString(CultureInfo.InvariantCulture) + ") references", null);
                }

                if (reference.Subject.Length == 0 || reference.Version < 1)
                {
                    throw Unusable("its reference " + BoundedText.Cut(reference.ToString(), 300) + " names no subject and version to fetch", null);
                }

                RegistrySchema dependency;
                try
                {
                    dependency = await _fetch(reference, cancellationToken).ConfigureAwait(false);
                }
                catch (SchemaRegistryRequestException e) when (IsFinalAnswer(e))
                {
                    throw Unusable("its reference " + reference + " cannot be had: " + e.Message, e);
                }

                FileDescriptorProto dependencyFile = Parse(dependency, "its reference " + reference);
                dependencyFile.Name = import; // the registry answers "default"; the importing file names it so
                await PlaceDependenciesAsync(dependencyFile, dependency.References, depth + 1, cancellationToken).ConfigureAwait(false);
                _ordered.Add(dependencyFile.ToByteString());
                _placed.Add(import);
            }

            _visiting.Remove(import);
        }
    }

    private void PlaceKnown(FileDescriptor known)
    {
        foreach (FileDescriptor dependency in known.Dependencies)
        {
            if (!_placed.Contains(dependency.Name))
            {
                PlaceKnown(dependency);
            }
        }

        _ordered.Add(known.SerializedData);
        _placed.Add(known.Name);
    }

    private FileDescriptorProto Parse(RegistrySchema schema, string what)
    {
        if (schema.SchemaType != "PROTOBUF")
        {
            throw Unusable(what + " is " + (schema.SchemaType == "AVRO" ? "an AVRO" : "a " + BoundedText.Cut(schema.SchemaType, 40)) + " schema, not Protobuf", null);
        }

        _bytes += schema.Schema.Length;
        if (_bytes > _limits.MaxBytes)
        {
            throw Unusable("it and its references take more than MaxResponseBytes (" + _limits.MaxBytes.ToString("N0", CultureInfo.InvariantCulture) + " bytes) in all", null);
        }

        try
        {
            return FileDescriptorProto.Parser.ParseFrom(ByteString.FromBase64(schema.Schema));
        }
        catch (Exception e) when (e is FormatException or InvalidProtocolBufferException)
        {
            throw Unusable(what + " is not a serialized FileDescriptorProto in base64 (asked with format=serialized)", e);
        }
    }

    private UnusableSchemaException Unusable(string reason, Exception? inner) => new(_schemaId, reason, inner);
}

/// <summary>How much a writer's schema may pull in (<see cref="RegistryClientOptions"/>' limits).</summary>
internal readonly struct ReferenceLimits(int maxReferences, int maxDepth, long maxBytes)
{
    internal int MaxReferences { get; } = maxReferences;

    internal int MaxDepth { get; } = maxDepth;

    internal long MaxBytes { get; } = maxBytes;
}
