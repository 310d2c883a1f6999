using System;
using System.Threading;
using System.Threading.Tasks;
using Google.Protobuf.Reflection;

namespace KafkaProtobuf.Fuzz;

/// <summary>
/// A schema source answering from a function, synchronously: for the fuzz harness and the tests, which map schema ids
/// to generated files without a registry. Also compiled into the test project.
/// </summary>
public sealed class FunctionSchemaSource(Func<SchemaIdentifier, FileDescriptor?> files) : ISchemaFileSource
{
    public Task<FileDescriptor?> GetSchemaFileAsync(SchemaIdentifier schemaId, CancellationToken cancellationToken) =>
        Task.FromResult(files(schemaId));
}
