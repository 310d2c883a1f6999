namespace KafkaProtobuf;

/// <summary>Whether records carry a message-index path after the schema id.</summary>
public enum MessageIndexPresence
{
    /// <summary>The path follows the schema id, as every Confluent serializer writes it (the default).</summary>
    Present = 0,

    /// <summary>
    /// No path: the payload follows the 5-byte prefix (magic byte 0, big-endian schema id), and the record is read as
    /// the schema's first message type, path <c>[0]</c>. Written by <c>@kafkajs/confluent-schema-registry</c> and some
    /// other non-Confluent clients. Opt-in only: such a payload cannot be told apart from a path by its bytes (a first
    /// byte <c>0x0A</c> reads as a count of 5), so it is never guessed. Cannot be combined with
    /// <see cref="MessageIndexEncoding.LegacyUnsigned"/>.
    /// </summary>
    Absent = 1,
}
