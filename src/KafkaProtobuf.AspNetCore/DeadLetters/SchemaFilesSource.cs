using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Google.Protobuf.Reflection;

namespace KafkaProtobuf.AspNetCore.DeadLetters;

/// <summary>
/// The application's files as the writer's schema of every record: the last one given (a descriptor set lists the
/// files asked for after their imports), whatever the schema id.
/// </summary>
internal sealed class SchemaFilesSource(IList<FileDescriptor> files) : ISchemaFileSource
{
    private readonly FileDescriptor _file = files.Last();

    public Task<FileDescriptor?> GetSchemaFileAsync(SchemaIdentifier schemaId, CancellationToken cancellationToken) => Task.FromResult<FileDescriptor?>(_file);
}
