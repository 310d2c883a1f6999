using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf.Decoding;

namespace KafkaProtobuf.Tool.Schemas;

/// <summary>
/// The files of <c>protoc --include_imports --descriptor_set_out=FILE</c> as a schema source: every schema id is read as
/// one file of the set, the one named, or else the last (protoc writes the files asked for after their imports).
/// </summary>
internal sealed class DescriptorSetSource : ISchemaFileSource
{
    private readonly FileDescriptor _file;

    /// <exception cref="IOException">The file cannot be read.</exception>
    /// <exception cref="InvalidDataException">The set is empty, or has no file of that name.</exception>
    /// <exception cref="InvalidProtocolBufferException">The file is not a descriptor set.</exception>
    public DescriptorSetSource(string path, string? fileName)
    {
        IReadOnlyList<FileDescriptor> files = DescriptorSetFile.Read(path);
        _file = fileName is null
            ? files[^1]
            : files.FirstOrDefault(f => f.Name == fileName)
              ?? throw new InvalidDataException($"{path} has no file '{fileName}'; it has: {string.Join(", ", files.Select(f => f.Name))}");
    }

    public Task<FileDescriptor?> GetSchemaFileAsync(SchemaIdentifier schemaId, CancellationToken cancellationToken) => Task.FromResult<FileDescriptor?>(_file);
}
