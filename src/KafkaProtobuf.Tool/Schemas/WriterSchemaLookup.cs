using System;
using System.Threading;
using System.Threading.Tasks;
using KafkaProtobuf.Resolution;

namespace KafkaProtobuf.Tool.Schemas;

/// <summary>
/// The writer's files of records, found through the library's own resolution (<see cref="WriterSchemaResolver"/>): the same
/// cache, the same message-index path rules (a map field's entry type is no record type) and the same answer for an
/// unknown schema as the deserializers, with no reader types (the tool decodes from the writer's schema alone).
/// </summary>
internal sealed class WriterSchemaLookup : IDisposable
{
    private readonly WriterSchemaResolver _schemas;
    private readonly IDisposable? _owner;

    /// <param name="source">Where the files come from.</param>
    /// <param name="owner">What to dispose with it (the registry client), if anything.</param>
    /// <param name="sourceName">How messages name the source: "the registry", "the descriptor set".</param>
    public WriterSchemaLookup(ISchemaFileSource source, IDisposable? owner, string sourceName)
    {
        var options = new WriterSchemaOptions { Source = source };
        _schemas = new WriterSchemaResolver(Array.Empty<Google.Protobuf.Reflection.MessageDescriptor>(), options);
        _owner = owner;
        SourceName = sourceName;
    }

    public string SourceName { get; }

    /// <summary>The writer's file of a schema identifier laid out by path, or <see langword="null"/> when the source does not know it.</summary>
    /// <exception cref="OperationCanceledException">Ctrl+C while the source was asked.</exception>
    /// <exception cref="Exception">The source failed (a <c>SchemaRegistryRequestException</c>).</exception>
    public Task<MessageTypeTable?> FindAsync(SchemaIdentifier schemaId, CancellationToken cancellationToken) =>
        _schemas.FindAsync(schemaId, cancellationToken); // awaited, so Ctrl+C cancels it; a cached identifier is not asked again

    public void Dispose() => _owner?.Dispose();
}
