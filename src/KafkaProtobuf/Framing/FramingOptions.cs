using KafkaProtobuf.Framing;

namespace KafkaProtobuf;

/// <summary>
/// The variant of Schema Registry framing records are written in: where the schema identifier is looked for, how the
/// message-index path is encoded, in which order, and whether there is one. The defaults read what every current Confluent serializer
/// writes; change them only for topics known to be written otherwise. One type for <see cref="FrameReader"/>, both
/// deserializers' options and the <c>kafka-protobuf</c> tool; a reader or deserializer copies the values when it is
/// created.
/// </summary>
public sealed class FramingOptions
{
    /// <summary>
    /// Where to look for the schema identifier. Default <see cref="SchemaIdLookup.HeaderThenPrefix"/> (Confluent's
    /// <c>Dual</c> rule); <see cref="SchemaIdLookup.PrefixOnly"/> ignores schema-id headers.
    /// </summary>
    public SchemaIdLookup SchemaIdLookup { get; set; } = SchemaIdLookup.HeaderThenPrefix;

    /// <summary>
    /// How message indexes are encoded. Default <see cref="MessageIndexEncoding.ZigZag"/>, what every current
    /// Confluent serializer writes; choose <see cref="MessageIndexEncoding.LegacyUnsigned"/> only for topics written
    /// with the deprecated format (Confluent clients before 5.5).
    /// </summary>
    public MessageIndexEncoding MessageIndexEncoding { get; set; } = MessageIndexEncoding.ZigZag;

    /// <summary>
    /// Whether records carry a message-index path. Default <see cref="MessageIndexPresence.Present"/>; choose
    /// <see cref="MessageIndexPresence.Absent"/> only for topics written by KafkaJS's registry client
    /// (<c>@kafkajs/confluent-schema-registry</c>), which puts the payload right after the schema id. Never guessed:
    /// without it such records are rejected (their first payload byte reads as an index count). Cannot be combined
    /// with <see cref="MessageIndexEncoding.LegacyUnsigned"/>.
    /// </summary>
    public MessageIndexPresence MessageIndexPresence { get; set; } = MessageIndexPresence.Present;

    /// <summary>
    /// In which order nested types' paths were written. Default <see cref="MessageIndexOrder.RootFirst"/>; choose
    /// <see cref="MessageIndexOrder.InnermostFirst"/> only for topics written by Confluent's .NET serializer 2.10.1 to
    /// 2.11.0, and <see cref="MessageIndexOrder.EitherByWriterSchema"/> (deserializers only) for topics that also hold
    /// records written before or after. The order applies to the indexes once decoded, so it combines with either
    /// <see cref="MessageIndexEncoding"/> (those versions wrote zigzag); it cannot be combined with
    /// <see cref="MessageIndexPresence.Absent"/>, which has no path to order.
    /// </summary>
    public MessageIndexOrder MessageIndexOrder { get; set; } = MessageIndexOrder.RootFirst;

    /// <summary>Whether these are the defaults, which <see cref="FrameReader.Default"/> reads.</summary>
    internal bool IsDefault =>
        SchemaIdLookup == SchemaIdLookup.HeaderThenPrefix && MessageIndexEncoding == MessageIndexEncoding.ZigZag
        && MessageIndexPresence == MessageIndexPresence.Present && MessageIndexOrder == MessageIndexOrder.RootFirst;

    /// <summary>
    /// A deserializer's reader for these options: the shared default one when they are the defaults. With
    /// <see cref="MessageIndexOrder.EitherByWriterSchema"/> it reads paths root first, as the bytes are; the
    /// deserializer then tries the other order itself.
    /// </summary>
    /// <exception cref="System.ArgumentOutOfRangeException">A value is not defined.</exception>
    /// <exception cref="System.ArgumentException">An impossible combination.</exception>
    internal FrameReader CreateReader() => IsDefault ? FrameReader.Default : new FrameReader(this, allowEitherOrder: true);
}
