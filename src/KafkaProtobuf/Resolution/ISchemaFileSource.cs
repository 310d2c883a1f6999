using System;
using System.Threading;
using System.Threading.Tasks;
using Google.Protobuf.Reflection;

namespace KafkaProtobuf;

/// <summary>
/// Where the writer's .proto file of a schema id or GUID comes from: a Schema Registry
/// (<c>KafkaProtobuf.SchemaRegistry.RegistryClient</c> is one), a protoc descriptor set, your own store. The
/// deserializers own the caching: they ask once per identifier while its answer is kept
/// (<see cref="WriterSchemaOptions.CacheCapacity"/>), so a source need not cache.
/// </summary>
public interface ISchemaFileSource
{
    /// <summary>
    /// The writer's .proto file of a schema identifier, its imports resolved into the <see cref="FileDescriptor"/>.
    /// </summary>
    /// <param name="schemaId">The schema id or GUID a record carries.</param>
    /// <param name="cancellationToken">Stops waiting.</param>
    /// <returns>
    /// The file, or <see langword="null"/> when the source does not know the identifier: the record is then bad data
    /// (<see cref="FrameErrorCode.UnknownSchemaId"/>). Unknown identifiers are asked about again (poison records carry
    /// them), so answering them must be cheap.
    /// </returns>
    /// <remarks>
    /// Any exception means the source failed, not the record: the deserializer reports it as
    /// <see cref="SchemaUnavailableException"/> and keeps nothing, so the next record asks again. The same identifier
    /// may be asked for by several threads at once. Throw <see cref="UnauthorizedAccessException"/> when the source
    /// refuses the credentials (<see cref="SchemaUnavailableException.IsAccessDenied"/>): retrying will not help. The
    /// one exception that is not a failure of the source is <see cref="UnusableSchemaException"/>: the source has an
    /// answer for the identifier that cannot be read as a Protobuf file and will not change (the schema is not Protobuf,
    /// does not build, misses a reference), so its records are bad data (<see cref="FrameErrorCode.UnusableWriterSchema"/>),
    /// dead-lettered rather than read again for ever.
    /// </remarks>
    Task<FileDescriptor?> GetSchemaFileAsync(SchemaIdentifier schemaId, CancellationToken cancellationToken);
}
