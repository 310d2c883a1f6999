namespace KafkaProtobuf;

/// <summary>How the message-index path (the count and each index) is encoded as varints.</summary>
public enum MessageIndexEncoding
{
    /// <summary>Zigzag varints, as every current Confluent serializer writes them: <c>[1]</c> is <c>02 02</c>.</summary>
    ZigZag = 0,

    /// <summary>
    /// Plain unsigned varints: <c>[1]</c> is <c>01 01</c>. Written by Confluent .NET 1.8 to 2.10.0 and
    /// confluent-kafka-python 1.x when configured to use the deprecated format. Opt-in only: the two encodings
    /// cannot be told apart from the bytes.
    /// </summary>
    LegacyUnsigned = 1,
}
