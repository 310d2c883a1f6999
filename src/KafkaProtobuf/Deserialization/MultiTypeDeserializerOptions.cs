using System;
using System.Collections.Generic;
using Google.Protobuf.Reflection;

namespace KafkaProtobuf;

/// <summary>
/// Options for <see cref="MultiTypeProtobufDeserializer"/>. The deserializer copies them when it is created.
/// </summary>
public sealed class MultiTypeDeserializerOptions
{
    /// <summary>How message indexes are encoded. Default <see cref="MessageIndexEncoding.ZigZag"/>.</summary>
    public MessageIndexEncoding MessageIndexEncoding { get; set; } = MessageIndexEncoding.ZigZag;

    /// <summary>
    /// Whether records carry a message-index path. Default <see cref="MessageIndexes.Present"/>. With
    /// <see cref="MessageIndexes.Absent"/> (KafkaJS's registry client) every record is path <c>[0]</c>, the first
    /// message type of its writer's file: another type cannot be told from such a record, so read those with
    /// <see cref="FramedProtobufDeserializer{T}"/>. Cannot be combined with <see cref="MessageIndexEncoding.LegacyUnsigned"/>.
    /// </summary>
    public MessageIndexes MessageIndexes { get; set; } = MessageIndexes.Present;

    /// <summary>Where to look for the schema identifier. Default <see cref="SchemaIdLookup.HeaderThenPrefix"/>.</summary>
    public SchemaIdLookup SchemaIdLookup { get; set; } = SchemaIdLookup.HeaderThenPrefix;

    /// <summary>
    /// Which .proto file each schema id or GUID was registered from. A record's message-index path is relative to its
    /// writer's file, so with types from more than one file the identifier decides which file the path is read in.
    /// With a single file and neither this nor <see cref="SchemaFileResolver"/> set, every record is read in that file.
    /// </summary>
    public IDictionary<SchemaIdentifier, FileDescriptor> SchemaFiles { get; } = new Dictionary<SchemaIdentifier, FileDescriptor>();

    /// <summary>
    /// Called for a schema identifier not in <see cref="SchemaFiles"/>; returns the writer's file, or
    /// <see langword="null"/> when the identifier is unknown (the record is then rejected with
    /// <see cref="FrameErrorCode.UnknownSchemaId"/>). The file may be the reader's generated one or one rebuilt from a
    /// schema registry: the record's path is read in it and its type matched to the given types by full name. An
    /// exception means the source failed, not the record: it is thrown as <see cref="SchemaUnavailableException"/>.
    /// </summary>
    /// <remarks>
    /// Answers (not <see langword="null"/> ones) for the 256 most recently used identifiers are cached, and a 257th evicts
    /// a cold one, so it is called about once per schema. It must be thread-safe, and cheap for identifiers it does not
    /// know, which poison records carry.
    /// </remarks>
    public Func<SchemaIdentifier, FileDescriptor?>? SchemaFileResolver { get; set; }

    /// <summary>
    /// When <see langword="true"/>, each writer's message type is compared once, when its schema is first seen, with
    /// the given type of the same name, field by field and down through the message types it contains: a field number
    /// the two declare with different wire types (writer <c>string name = 3</c>, reader <c>int64 count = 3</c>) makes
    /// every record of that type fail with <see cref="FrameErrorCode.IncompatibleWriterSchema"/> before any is parsed.
    /// Added and removed fields are fine. Meaningful with a <see cref="SchemaFileResolver"/> that returns the writer's
    /// own file (e.g. from a schema registry). Default <see langword="false"/>.
    /// </summary>
    public bool VerifyWriterSchema { get; set; }

    /// <summary>
    /// What to do with a record whose path names a type the deserializer was not given. Default
    /// <see cref="UnregisteredMessageTypeHandling.Reject"/>.
    /// </summary>
    public UnregisteredMessageTypeHandling UnregisteredMessageTypes { get; set; } = UnregisteredMessageTypeHandling.Reject;
}
