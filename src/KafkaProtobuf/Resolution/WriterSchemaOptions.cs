using System.Collections.Generic;
using Google.Protobuf.Reflection;

namespace KafkaProtobuf;

/// <summary>
/// Where a deserializer finds the writer's .proto file of a record (its message-index path is relative to that file),
/// how many answers it keeps, and whether it checks the writer's types against the reader's. Part of
/// <see cref="FramedDeserializerOptions"/> and <see cref="MultiTypeDeserializerOptions"/>; copied when the deserializer
/// is created.
/// </summary>
public sealed class WriterSchemaOptions
{
    /// <summary>The default <see cref="CacheCapacity"/>: 1,000 schema identifiers.</summary>
    public const int DefaultCacheCapacity = 1000;

    /// <summary>
    /// Which .proto file each schema id or GUID was registered from, known in advance; consulted before
    /// <see cref="Source"/>. With a single reader file and neither this nor a source, every record is read in that file.
    /// </summary>
    public IDictionary<SchemaIdentifier, FileDescriptor> Files { get; } = new Dictionary<SchemaIdentifier, FileDescriptor>();

    /// <summary>
    /// Asked for identifiers not in <see cref="Files"/>, e.g. a <c>RegistryClient</c>: the record's path is then read in
    /// the writer's own file and its type matched to the reader's by full name, whatever order either declares them in.
    /// </summary>
    public ISchemaFileSource? Source { get; set; }

    /// <summary>
    /// How many identifiers' answers from <see cref="Source"/> the deserializer keeps. Default
    /// <see cref="DefaultCacheCapacity"/>. An entry is a few dozen bytes; the per-file tables they point to are shared
    /// by every identifier of the same file. Past the capacity the entries in use stay in and a newcomer gets in on its
    /// second miss: with twice as many identifiers in use as the capacity, round robin, half the records still hit.
    /// Answers are never stale (an identifier's schema never changes); failures and unknown identifiers are not kept.
    /// </summary>
    public int CacheCapacity { get; set; } = DefaultCacheCapacity;

    /// <summary>
    /// When <see langword="true"/>, each writer's message type is compared once, when its schema is first seen, with
    /// the reader's type of the same name, field by field and down through the message types it contains: a field number
    /// the two declare with different wire types (writer <c>string name = 3</c>, reader <c>int64 count = 3</c>) makes
    /// every record of that type fail with <see cref="FrameErrorCode.IncompatibleWriterSchema"/> before any is parsed.
    /// Added and removed fields are fine. Needs the writer's own file (<see cref="Source"/> or <see cref="Files"/>).
    /// Default <see langword="false"/>.
    /// </summary>
    public bool VerifyCompatibility { get; set; }

    /// <summary>Whether records can be resolved by schema identifier at all: a fixed map or a source.</summary>
    internal bool KnowsWriterFiles => Source is not null || Files.Count > 0;
}
