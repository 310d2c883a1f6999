using System;
using System.Threading;
using System.Threading.Tasks;
using Google.Protobuf.Reflection;

namespace KafkaProtobuf.Decoding;

/// <summary>
/// One .proto file as the writer's schema of every schema identifier: for records whose writers' schema you have as a
/// file (your generated code's <c>Descriptor</c>, or a protoc descriptor set's, <see cref="DescriptorSetFile"/>) rather
/// than in a registry. A record's message-index path is read in it, whatever its schema id.
/// </summary>
public sealed class SingleFileSchemaSource : ISchemaFileSource
{
    private readonly Task<FileDescriptor?> _answer;

    /// <summary>Creates the source.</summary>
    /// <param name="file">The file every identifier is read as.</param>
    /// <exception cref="ArgumentNullException"><paramref name="file"/> is null.</exception>
    public SingleFileSchemaSource(FileDescriptor file)
    {
        File = file ?? throw new ArgumentNullException(nameof(file));
        _answer = Task.FromResult<FileDescriptor?>(file);
    }

    /// <summary>The file every identifier is read as.</summary>
    public FileDescriptor File { get; }

    /// <inheritdoc/>
    public Task<FileDescriptor?> GetSchemaFileAsync(SchemaIdentifier schemaId, CancellationToken cancellationToken) => _answer;
}
