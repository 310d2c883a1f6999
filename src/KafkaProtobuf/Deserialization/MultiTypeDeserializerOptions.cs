namespace KafkaProtobuf;

/// <summary>
/// Options for <see cref="MultiTypeProtobufDeserializer"/>. The deserializer copies them when it is created.
/// </summary>
public sealed class MultiTypeDeserializerOptions
{
    /// <summary>
    /// The framing variant records are written in; the defaults read every current Confluent serializer. With
    /// <see cref="MessageIndexPresence.Absent"/> (KafkaJS's registry client) every record is path <c>[0]</c>, the first
    /// message type of its writer's file: another type cannot be told from such a record, so read those with
    /// <see cref="FramedProtobufDeserializer{T}"/>.
    /// </summary>
    public FramingOptions Framing { get; } = new();

    /// <summary>
    /// Where the writer's .proto file of a record comes from. A record's message-index path is relative to its writer's
    /// file, so with types from more than one file the schema identifier decides which file the path is read in: map
    /// identifiers in <see cref="WriterSchemaOptions.Files"/> or give a <see cref="WriterSchemaOptions.Source"/> (a
    /// schema registry). With a single file and neither, every record is read in that file.
    /// </summary>
    public WriterSchemaOptions WriterSchemas { get; } = new();

    /// <summary>
    /// What to do with a record whose path names a type the deserializer was not given. Default
    /// <see cref="UnregisteredMessageTypeHandling.Reject"/>.
    /// </summary>
    public UnregisteredMessageTypeHandling UnregisteredMessageTypes { get; set; } = UnregisteredMessageTypeHandling.Reject;
}
