using System;
using System.Text;

namespace KafkaProtobuf.Decoding;

/// <summary>What netstandard2.0 lacks for reading a payload's bytes: UTF-8 text of a span, a float from its bits.</summary>
internal static class PayloadBytes
{
    /// <summary>The UTF-8 text of <paramref name="bytes"/>, invalid sequences read as replacement characters.</summary>
    public static string Utf8(ReadOnlySpan<byte> bytes)
    {
#if NETSTANDARD2_0
        return Encoding.UTF8.GetString(bytes.ToArray());
#else
        return Encoding.UTF8.GetString(bytes);
#endif
    }

    /// <summary>The float whose IEEE 754 bits these are.</summary>
    public static float Float(uint bits)
    {
#if NETSTANDARD2_0
        return BitConverter.ToSingle(BitConverter.GetBytes(bits), 0);
#else
        return BitConverter.Int32BitsToSingle((int)bits);
#endif
    }
}
