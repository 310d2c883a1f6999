using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf.Reflection;
using KafkaProtobuf.Diagnostics;

namespace KafkaProtobuf.Resolution;

/// <summary>
/// Which writer's file a record's message-index path is read in, and which reader type each writer type is: the one
/// owner of schema caching. A schema identifier maps to a file through a fixed map, an asynchronous
/// <see cref="ISchemaFileSource"/> (e.g. a schema registry) or, for a single reader file, that file; the file's types
/// are matched to the reader's compiled types by full name, so a reader whose .proto declares its messages in another
/// order still gets the right type.
/// </summary>
/// <remarks>
/// The source's answers sit in a bounded <see cref="SchemaCache{TKey, TValue}"/>: a hit takes no lock and allocates
/// nothing. A miss waits for the source (<see cref="SyncOverAsync"/>, the deserializers being synchronous). A source that
/// throws is a failing dependency, not bad data: <see cref="SchemaUnavailableException"/>; but for
/// <see cref="UnusableSchemaException"/>, its answer that the identifier's schema cannot be used
/// (<see cref="FrameErrorCode.UnusableWriterSchema"/>). A source that answers <see langword="null"/> does not know the id
/// (<see cref="FrameErrorCode.UnknownSchemaId"/>). None of these is kept.
/// </remarks>
internal sealed class WriterSchemaResolver
{
    private readonly Dictionary<string, MessageDescriptor> _readerTypes;
    private readonly Func<MessageDescriptor, MessageDescriptor?> _readerTypeFor;
    private readonly Dictionary<SchemaIdentifier, MessageTypeTable>? _fixed; // null when empty: one check less per record
    private readonly ISchemaFileSource? _source;
    private readonly SchemaCache<SchemaIdentifier, MessageTypeTable>? _resolved;

    // One table per file object, however many identifiers name it; kept only while an identifier's entry holds it.
    private readonly ConditionalWeakTable<FileDescriptor, MessageTypeTable> _tables = new();
    private readonly ConditionalWeakTable<FileDescriptor, MessageTypeTable>.CreateValueCallback _buildTable;
    private readonly bool _checkCompatibility;

    /// <param name="readerTypes">The reader's compiled types; full names must be unique.</param>
    /// <param name="options">Fixed files, the source, the cache capacity, the compatibility check.</param>
    /// <exception cref="ArgumentException">Two reader types share a full name, or a fixed file is null.</exception>
    /// <exception cref="ArgumentOutOfRangeException">The cache capacity is less than 1.</exception>
    internal WriterSchemaResolver(IReadOnlyCollection<MessageDescriptor> readerTypes, WriterSchemaOptions options)
    {
        new OptionProblems(nameof(WriterSchemaOptions))
            .Require(options.CacheCapacity >= 1, nameof(options.CacheCapacity), options.CacheCapacity, "at least 1")
            .ThrowIfAny(nameof(options));

        _readerTypes = new Dictionary<string, MessageDescriptor>(StringComparer.Ordinal);
        foreach (MessageDescriptor type in readerTypes)
        {
            if (_readerTypes.TryGetValue(type.FullName, out MessageDescriptor? other) && !ReferenceEquals(other, type))
            {
                throw new ArgumentException("Two message types share the full name " + type.FullName + ".", nameof(readerTypes));
            }

            _readerTypes[type.FullName] = type;
        }

        _readerTypeFor = writer => _readerTypes.TryGetValue(writer.FullName, out MessageDescriptor? reader) ? reader : null;
        _checkCompatibility = options.VerifyCompatibility;
        _buildTable = file => MessageTypeTable.Build(file, _readerTypeFor, _checkCompatibility);
        Dictionary<SchemaIdentifier, MessageTypeTable> byId = options.Files.ToDictionary(
            pair => pair.Key,
            pair => TableFor(pair.Value ?? throw new ArgumentException("A file in WriterSchemas.Files is null.", nameof(options))));
        _fixed = byId.Count == 0 ? null : byId;
        _source = options.Source;
        _resolved = _source is null ? null : new SchemaCache<SchemaIdentifier, MessageTypeTable>(options.CacheCapacity);

        FileDescriptor[] files = readerTypes.Select(t => t.File).Distinct().ToArray();
        if (files.Length == 1 && _fixed is null && _source is null)
        {
            SingleFileTable = TableFor(files[0]);
        }
    }

    /// <summary>The table every record is read in, when there is a single reader file and no fixed map or source.</summary>
    internal MessageTypeTable? SingleFileTable { get; }

    /// <summary>Whether an unknown identifier was asked of a source (rather than looked up in a fixed map only).</summary>
    internal bool HasSource => _source is not null;

    /// <summary>
    /// The writer's file laid out for <paramref name="schemaId"/>, or <see langword="null"/> when no file is known for it
    /// or, with <paramref name="unusable"/>, the one the source has cannot be used.
    /// </summary>
    /// <exception cref="SchemaUnavailableException">The source failed.</exception>
    internal MessageTypeTable? Find(SchemaIdentifier schemaId, SerializationContext context, out UnusableSchemaException? unusable)
    {
        unusable = null;
        if (SingleFileTable is not null)
        {
            return SingleFileTable;
        }

        // The source's cache first, as the hot case: the source is only asked for ids the map lacks, so it never shadows the map.
        MessageTypeTable? table;
        if (_resolved is not null && _resolved.TryGetValue(schemaId, out table))
        {
            return table;
        }

        if (_fixed is not null && _fixed.TryGetValue(schemaId, out table))
        {
            return table;
        }

        return _resolved is null ? null : Resolve(schemaId, context, out unusable);
    }

    /// <summary>Asks the source for identifiers ahead of their first records, so that those do not wait.</summary>
    /// <returns>The identifiers whose records would be bad data: the source does not know them, or cannot use what it has.</returns>
    /// <exception cref="InvalidOperationException">There is no source.</exception>
    internal async Task<IReadOnlyList<SchemaIdentifier>> WarmUpAsync(IEnumerable<SchemaIdentifier> schemaIds, CancellationToken cancellationToken)
    {
        var unreadable = new List<SchemaIdentifier>();
        foreach (SchemaIdentifier schemaId in schemaIds.Distinct())
        {
            try
            {
                if (await FindAsync(schemaId, cancellationToken).ConfigureAwait(false) is null)
                {
                    unreadable.Add(schemaId);
                }
            }
            catch (UnusableSchemaException)
            {
                unreadable.Add(schemaId);
            }
        }

        return unreadable;
    }

    /// <summary>
    /// <see cref="Find"/> for callers that can wait asynchronously (warm-up, the tool): the source is awaited, with a
    /// token, instead of waited for; its failure is thrown as it is.
    /// </summary>
    /// <exception cref="InvalidOperationException">There is no source.</exception>
    /// <exception cref="UnusableSchemaException">The source's answer for the identifier cannot be used.</exception>
    internal async Task<MessageTypeTable?> FindAsync(SchemaIdentifier schemaId, CancellationToken cancellationToken)
    {
        if (_source is null)
        {
            throw new InvalidOperationException("There is no WriterSchemas.Source to ask.");
        }

        if (_resolved!.TryGetValue(schemaId, out MessageTypeTable? table) || (_fixed is not null && _fixed.TryGetValue(schemaId, out table)))
        {
            return table;
        }

        FileDescriptor? file = await _source.GetSchemaFileAsync(schemaId, cancellationToken).ConfigureAwait(false);
        return file is null ? null : _resolved.Offer(schemaId, TableFor(file));
    }

    private MessageTypeTable? Resolve(SchemaIdentifier schemaId, SerializationContext context, out UnusableSchemaException? unusable)
    {
        unusable = null;
        FileDescriptor? file;
        try
        {
            file = SyncOverAsync.Wait(() => _source!.GetSchemaFileAsync(schemaId, CancellationToken.None));
        }
        catch (UnusableSchemaException e)
        {
            unusable = e; // an answer about this identifier, not a failure: its records are bad data
            return null;
        }
        catch (Exception e)
        {
            KafkaProtobufMetrics.SchemaUnavailable();
            throw new SchemaUnavailableException(schemaId, context.Component, context.Topic, e);
        }

        return file is null ? null : _resolved!.Offer(schemaId, TableFor(file));
    }

    private MessageTypeTable TableFor(FileDescriptor file) => _tables.GetValue(file, _buildTable);
}
