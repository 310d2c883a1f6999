namespace KafkaProtobuf;

/// <summary>What a <see cref="MultiTypeProtobufDeserializer"/> does with a record of a type it was not given.</summary>
public enum UnregisteredMessageTypeHandling
{
    /// <summary>Reject it with <see cref="FrameErrorCode.UnregisteredMessageType"/> (the default: nothing passes unnoticed).</summary>
    Reject = 0,

    /// <summary>
    /// Skip it without parsing: the result is the type's <see cref="SkippedMessage"/> marker, and the record costs only
    /// the framing read.
    /// </summary>
    Skip = 1,
}
