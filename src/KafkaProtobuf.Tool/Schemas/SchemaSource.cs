using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf.SchemaRegistry;

namespace KafkaProtobuf.Tool.Schemas;

/// <summary>Where the writer's .proto file comes from: a Schema Registry (by schema id or GUID) or a protoc descriptor set.</summary>
internal abstract class SchemaSource : IDisposable
{
    /// <summary>The writer's file for a schema id or GUID.</summary>
    /// <exception cref="SchemaRegistryRequestException">The registry failed or does not know the schema.</exception>
    public abstract Task<FileDescriptor> GetFileAsync(SchemaIdentifier schemaId, CancellationToken cancellationToken);

    public void Dispose() => DisposeCore();

    protected virtual void DisposeCore()
    {
    }

    /// <summary>The message type at a message-index path of a file, or null when the path leads nowhere.</summary>
    public static MessageDescriptor? Locate(FileDescriptor file, IReadOnlyList<int> path)
    {
        IList<MessageDescriptor> level = file.MessageTypes;
        MessageDescriptor? type = null;
        foreach (int index in path)
        {
            if (index < 0 || index >= level.Count)
            {
                return null;
            }

            type = level[index];
            level = type.NestedTypes;
        }

        return type;
    }
}

/// <summary>Schemas from a Schema Registry through this package's <see cref="RegistryClient"/> (cached, retried).</summary>
internal sealed class RegistrySchemaSource(RegistryClient client) : SchemaSource
{
    public override Task<FileDescriptor> GetFileAsync(SchemaIdentifier schemaId, CancellationToken cancellationToken) =>
        client.GetFileAsync(schemaId, cancellationToken);

    protected override void DisposeCore() => client.Dispose();
}

/// <summary>
/// The files of <c>protoc --include_imports --descriptor_set_out=FILE</c>: every schema id is read as one file of the set,
/// the one named, or else the last (protoc writes the files asked for after their imports).
/// </summary>
internal sealed class DescriptorSetSchemaSource : SchemaSource
{
    private readonly FileDescriptor _file;

    public DescriptorSetSchemaSource(string path, string? fileName)
    {
        var set = FileDescriptorSet.Parser.ParseFrom(File.ReadAllBytes(path));
        if (set.File.Count == 0)
        {
            throw new InvalidDataException($"{path} holds no files: write it with protoc --include_imports --descriptor_set_out");
        }

        IReadOnlyList<FileDescriptor> files = FileDescriptor.BuildFromByteStrings(set.File.Select(f => f.ToByteString()));
        Files = files;
        _file = fileName is null
            ? files[^1]
            : files.FirstOrDefault(f => f.Name == fileName)
              ?? throw new InvalidDataException($"{path} has no file '{fileName}'; it has: {string.Join(", ", files.Select(f => f.Name))}");
    }

    public IReadOnlyList<FileDescriptor> Files { get; }

    public override Task<FileDescriptor> GetFileAsync(SchemaIdentifier schemaId, CancellationToken cancellationToken) => Task.FromResult(_file);
}
