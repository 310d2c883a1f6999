namespace KafkaProtobuf;

/// <summary>In which order the message-index path of a nested type was written.</summary>
/// <remarks>
/// Confluent.SchemaRegistry.Serdes.Protobuf 2.10.1, 2.10.1-POST1 and 2.11.0 wrote the path of a nested type innermost
/// first (their issue #2505, fixed in 2.11.1): a type at <c>[1, 0]</c> as <c>[0, 1]</c>, bytes <c>04 02 00</c> instead of
/// <c>04 00 02</c>. Top-level types and palindromic paths (<c>[0, 0]</c>, <c>[1, 0, 1]</c>) read the same either way.
/// Confluent's own deserializer ignores the path, so such records went unnoticed; a reversed path is usually also a
/// valid path, so the order is never guessed.
/// </remarks>
public enum MessageIndexOrder
{
    /// <summary>Top-level index first, as the format specifies and every other serializer writes it (the default).</summary>
    RootFirst = 0,

    /// <summary>
    /// Innermost index first: every record of the topic was written by Confluent's .NET serializer 2.10.1 to 2.11.0.
    /// Read paths are reversed back, so <see cref="Framing.Frame.MessageIndexPath"/> is top level first as always.
    /// </summary>
    InnermostFirst = 1,

    /// <summary>
    /// Either, decided per record by the writer's schema: for a topic holding records from before and after an upgrade
    /// past 2.11.0. The path read both ways is looked up in the writer's file; the reading that names a message type
    /// wins. When both readings name a type (a different one each), nothing tells which was written: the record is
    /// rejected with <see cref="FrameErrorCode.AmbiguousMessageIndexOrder"/>, never guessed. Deserializers only (they
    /// know the writer's file; a <see cref="Framing.FrameReader"/> does not).
    /// </summary>
    EitherByWriterSchema = 2,
}
