using System;
using System.Collections.Generic;
using System.Linq;
using Confluent.Kafka;
using Google.Protobuf.Reflection;
using KafkaProtobuf.Caching;

namespace KafkaProtobuf.Resolution;

/// <summary>
/// Which writer's file a record's message-index path is read in, and which reader type each writer type is: the one
/// piece of resolution both deserializers share. A schema identifier maps to a file through a fixed map, a resolver
/// (e.g. a schema registry) or, for a single file, that file; the file's types are matched to the reader's compiled
/// types by full name, so a reader whose .proto declares its messages in another order still gets the right type.
/// </summary>
/// <remarks>
/// Resolver answers and per-file tables sit in bounded CLOCK caches: a hit takes no lock and allocates nothing, a
/// 257th schema evicts a cold one instead of turning every later record of it into a resolver call, and garbage ids
/// cannot grow anything. A resolver that throws is a failing dependency, not bad data:
/// <see cref="SchemaUnavailableException"/>. A resolver that returns <see langword="null"/> does not know the id
/// (<see cref="FrameErrorCode.UnknownSchemaId"/>); that answer is not cached.
/// </remarks>
internal sealed class WriterSchemas
{
    /// <summary>How many resolver answers, and how many files' tables, are kept.</summary>
    internal const int CacheCapacity = 256;

    private readonly Dictionary<string, MessageDescriptor> _readerTypes;
    private readonly Func<MessageDescriptor, MessageDescriptor?> _readerTypeFor;
    private readonly Dictionary<SchemaIdentifier, MessageTypeTable>? _bySchemaId; // null when empty: one check less per record
    private readonly Func<SchemaIdentifier, FileDescriptor?>? _resolver;
    private readonly ClockCache<SchemaIdentifier, MessageTypeTable>? _resolved;
    private readonly ClockCache<ReferenceKey<FileDescriptor>, MessageTypeTable> _byFile = new(CacheCapacity);
    private readonly bool _checkWriterSchema;

    /// <param name="readerTypes">The reader's compiled types; full names must be unique.</param>
    /// <param name="schemaFiles">Fixed answers, consulted first.</param>
    /// <param name="resolver">Asked for identifiers not in <paramref name="schemaFiles"/>.</param>
    /// <param name="checkWriterSchema">Compare each writer type with its reader type once, when its table is built.</param>
    internal WriterSchemas(
        IReadOnlyCollection<MessageDescriptor> readerTypes,
        IEnumerable<KeyValuePair<SchemaIdentifier, FileDescriptor>> schemaFiles,
        Func<SchemaIdentifier, FileDescriptor?>? resolver,
        bool checkWriterSchema)
    {
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
        _checkWriterSchema = checkWriterSchema;
        Dictionary<SchemaIdentifier, MessageTypeTable> bySchemaId = schemaFiles.ToDictionary(pair => pair.Key, pair => TableFor(pair.Value ?? throw new ArgumentException("A schema file is null.", nameof(schemaFiles))));
        _bySchemaId = bySchemaId.Count == 0 ? null : bySchemaId;
        _resolver = resolver;
        _resolved = resolver is null ? null : new ClockCache<SchemaIdentifier, MessageTypeTable>(CacheCapacity);

        FileDescriptor[] files = readerTypes.Select(t => t.File).Distinct().ToArray();
        if (files.Length == 1 && _bySchemaId is null && resolver is null)
        {
            OnlyFile = TableFor(files[0]);
        }
    }

    /// <summary>The table every record is read in, when there is a single reader file and no map or resolver.</summary>
    internal MessageTypeTable? OnlyFile { get; }

    /// <summary>Whether records can be resolved by schema identifier at all (a map or a resolver).</summary>
    /// <summary>The writer's file laid out for <paramref name="schemaId"/>, or <see langword="null"/> when no file is known for it.</summary>
    /// <exception cref="SchemaUnavailableException">The resolver threw.</exception>
    internal MessageTypeTable? Find(SchemaIdentifier schemaId, SerializationContext context)
    {
        if (OnlyFile is not null)
        {
            return OnlyFile;
        }

        // The resolver's cache first, as the hot case: the resolver is only asked for ids the map lacks, so it never shadows the map.
        MessageTypeTable? table;
        if (_resolved is not null && _resolved.TryGetValue(schemaId, out table))
        {
            return table;
        }

        if (_bySchemaId is not null && _bySchemaId.TryGetValue(schemaId, out table))
        {
            return table;
        }

        return _resolved is null ? null : Resolve(schemaId, context);
    }

    private MessageTypeTable? Resolve(SchemaIdentifier schemaId, SerializationContext context)
    {
        FileDescriptor? file;
        try
        {
            file = _resolver!(schemaId);
        }
        catch (Exception e)
        {
            KafkaProtobufMetrics.SchemaUnavailable();
            throw new SchemaUnavailableException(schemaId, context.Component, context.Topic, e);
        }

        return file is null ? null : _resolved!.GetOrAdd(schemaId, TableFor(file));
    }

    private MessageTypeTable TableFor(FileDescriptor file)
    {
        var key = new ReferenceKey<FileDescriptor>(file);
        return _byFile.TryGetValue(key, out MessageTypeTable? table)
            ? table
            : _byFile.GetOrAdd(key, MessageTypeTable.Build(file, _readerTypeFor, _checkWriterSchema));
    }
}
