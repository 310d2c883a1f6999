using System;

namespace KafkaProtobuf.Decoding;

/// <summary>A payload that is not a valid Protobuf encoding of its message type, with the byte offset where it fails.</summary>
internal sealed class PayloadDecodeException : Exception
{
    /// <summary>Creates the exception.</summary>
    /// <param name="reason">What is wrong.</param>
    /// <param name="offset">The offset of the offending byte, from the start of the decoded bytes.</param>
    public PayloadDecodeException(string reason, int offset)
        : base($"{reason} (at byte {offset})")
    {
        Reason = reason;
        Offset = offset;
    }

    /// <summary>What is wrong, without the offset.</summary>
    public string Reason { get; }

    /// <summary>The offset of the offending byte.</summary>
    public int Offset { get; }
}
