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

    /// <summary>Where to look for the schema identifier. Default <see cref="SchemaIdLookup.HeaderThenPrefix"/>.</summary>
    public SchemaIdLookup SchemaIdLookup { get; set; } = SchemaIdLookup.HeaderThenPrefix;

    /// <summary>
    /// Which .proto file each schema id or GUID was registered from. A record's message-index path is relative to its
    /// writer's file, so with types from more than one file the identifier decides which file the path is read in.
    /// With a single file and neither this nor <see cref="SchemaFileResolver"/> set, every record is read in that file.
    /// </summary>
    public IDictionary<SchemaIdentifier, FileDescriptor> SchemaFiles { get; } = new Dictionary<SchemaIdentifier, FileDescriptor>();

    /// <summary>
    /// Called for a schema identifier not in <see cref="SchemaFiles"/>; returns its file, or <see langword="null"/>
    /// when unknown (the record is then rejected with <see cref="FrameErrorCode.UnknownSchemaId"/>). Answers for up to 256
    /// identifiers are cached, so it is called about once per schema; it must be thread-safe and cheap enough to be
    /// called per record for identifiers beyond those.
    /// </summary>
    public Func<SchemaIdentifier, FileDescriptor?>? SchemaFileResolver { get; set; }

    /// <summary>
    /// What to do with a record whose path names a type the deserializer was not given. Default
    /// <see cref="UnregisteredMessageTypeHandling.Reject"/>.
    /// </summary>
    public UnregisteredMessageTypeHandling UnregisteredMessageTypes { get; set; } = UnregisteredMessageTypeHandling.Reject;
}
