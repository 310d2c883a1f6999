using System;
using Google.Protobuf.Reflection;

namespace KafkaProtobuf;

/// <summary>
/// Options for <see cref="FramedProtobufDeserializer{T}"/>. A deserializer copies them when it is created, so
/// changing an options object later does not affect deserializers already built from it.
/// </summary>
public sealed class FramedDeserializerOptions
{
    /// <summary>
    /// How message indexes are encoded. Default <see cref="MessageIndexEncoding.ZigZag"/>, what every current
    /// Confluent serializer writes; choose <see cref="MessageIndexEncoding.LegacyUnsigned"/> only for topics written
    /// with the deprecated format.
    /// </summary>
    public MessageIndexEncoding MessageIndexEncoding { get; set; } = MessageIndexEncoding.ZigZag;

    /// <summary>
    /// Whether records carry a message-index path. Default <see cref="MessageIndexes.Present"/>; choose
    /// <see cref="MessageIndexes.Absent"/> only for topics written by KafkaJS's registry client
    /// (<c>@kafkajs/confluent-schema-registry</c>), which puts the payload right after the schema id. Never guessed:
    /// without it such records are rejected (their first payload byte reads as an index count). Cannot be combined
    /// with <see cref="MessageIndexEncoding.LegacyUnsigned"/>.
    /// </summary>
    public MessageIndexes MessageIndexes { get; set; } = MessageIndexes.Present;

    /// <summary>
    /// Where to look for the schema identifier. Default <see cref="SchemaIdLookup.HeaderThenPrefix"/> (Confluent's
    /// <c>Dual</c> rule); <see cref="SchemaIdLookup.PrefixOnly"/> ignores schema-id headers.
    /// </summary>
    public SchemaIdLookup SchemaIdLookup { get; set; } = SchemaIdLookup.HeaderThenPrefix;

    /// <summary>
    /// When <see langword="true"/>, a record whose message-index path does not name the deserializer's type in that
    /// type's own .proto file is rejected with <see cref="FrameErrorCode.UnexpectedMessageType"/> instead of being parsed.
    /// Default <see langword="false"/>, like Confluent's deserializer, which parses whatever arrives.
    /// </summary>
    /// <remarks>
    /// Without a <see cref="SchemaFileResolver"/> the path is compared with the type's own path, which is only
    /// meaningful when the reader's .proto declares its messages (and nested messages, and map fields) in the same
    /// order as the writer's: the same file, or a copy that only appended. With a resolver the path is read in the
    /// writer's file and the type it names is compared with the deserializer's type by full name, which survives
    /// reordering.
    /// </remarks>
    public bool VerifyWriterType { get; set; }

    /// <summary>
    /// Returns the writer's .proto file for a schema identifier (e.g. rebuilt from a schema registry), or
    /// <see langword="null"/> when the identifier is unknown (<see cref="FrameErrorCode.UnknownSchemaId"/>). Used by
    /// <see cref="VerifyWriterType"/> (by name) and <see cref="VerifyWriterSchema"/>; answers are cached as for
    /// <see cref="MultiTypeDeserializerOptions.SchemaFileResolver"/>. An exception means the source failed, not the
    /// record: it is thrown as <see cref="SchemaUnavailableException"/>.
    /// </summary>
    public Func<SchemaIdentifier, FileDescriptor?>? SchemaFileResolver { get; set; }

    /// <summary>
    /// When <see langword="true"/>, the writer's message type is compared once per schema with the deserializer's type,
    /// as <see cref="MultiTypeDeserializerOptions.VerifyWriterSchema"/> describes
    /// (<see cref="FrameErrorCode.IncompatibleWriterSchema"/>). Needs a <see cref="SchemaFileResolver"/>. Default
    /// <see langword="false"/>.
    /// </summary>
    public bool VerifyWriterSchema { get; set; }

    internal FrameReader CreateReader() =>
        MessageIndexEncoding == MessageIndexEncoding.ZigZag && SchemaIdLookup == SchemaIdLookup.HeaderThenPrefix && MessageIndexes == MessageIndexes.Present
            ? FrameReader.Default
            : new FrameReader(MessageIndexEncoding, SchemaIdLookup, MessageIndexes);
}
