using System;
using System.Runtime.CompilerServices;

namespace KafkaProtobuf.Framing;

/// <summary>
/// Base-128 varints of at most 32 bits, as the message-index path uses them. Like
/// <c>BinaryReader.Read7BitEncodedInt</c>: at most 5 bytes, and the 5th carries at most 4 bits.
/// </summary>
internal static class Varint
{
    internal const int MaxLength = 5;

    /// <summary>Reads the varint starting at <paramref name="position"/>, checking every byte.</summary>
    /// <returns><see cref="FrameErrorCode.None"/>, or why the bytes are not a 32-bit varint.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static FrameErrorCode TryRead(ReadOnlySpan<byte> buffer, int position, out uint value, out int length)
    {
        // Fast path: nearly every count and index is below 128.
        if ((uint)position < (uint)buffer.Length && buffer[position] < 0x80)
        {
            value = buffer[position];
            length = 1;
            return FrameErrorCode.None;
        }

        return TryReadMultiByte(buffer, position, out value, out length);
    }

    private static FrameErrorCode TryReadMultiByte(ReadOnlySpan<byte> buffer, int position, out uint value, out int length)
    {
        uint result = 0;
        for (int i = 0; i < MaxLength; i++)
        {
            int at = position + i;
            if ((uint)at >= (uint)buffer.Length)
            {
                value = 0;
                length = 0;
                return FrameErrorCode.TruncatedVarint;
            }

            uint b = buffer[at];
            if (i == MaxLength - 1)
            {
                if (b >= 0x80)
                {
                    value = 0;
                    length = 0;
                    return FrameErrorCode.VarintTooLong;
                }

                if (b > 0x0F)
                {
                    value = 0;
                    length = 0;
                    return FrameErrorCode.VarintOverflow;
                }
            }

            result |= (b & 0x7F) << (7 * i);
            if (b < 0x80)
            {
                value = result;
                length = i + 1;
                return FrameErrorCode.None;
            }
        }

        // Unreachable: the 5th byte either ends the varint or is rejected above.
        value = 0;
        length = 0;
        return FrameErrorCode.VarintTooLong;
    }

    /// <summary>Reads a varint already validated by <see cref="TryRead"/>; advances <paramref name="position"/>.</summary>
    internal static uint ReadValidated(ReadOnlySpan<byte> buffer, ref int position)
    {
        uint result = 0;
        int shift = 0;
        uint b;
        do
        {
            b = buffer[position++];
            result |= (b & 0x7F) << shift;
            shift += 7;
        }
        while (b >= 0x80);

        return result;
    }

    /// <summary>Turns a raw varint into a count or index: zigzag, or the plain unsigned legacy form.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static int Decode(uint raw, MessageIndexEncoding encoding) =>
        encoding == MessageIndexEncoding.ZigZag ? (int)(raw >> 1) ^ -(int)(raw & 1) : unchecked((int)raw);

    /// <summary>The inverse of <see cref="Decode"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static uint Encode(int value, MessageIndexEncoding encoding) =>
        encoding == MessageIndexEncoding.ZigZag ? (uint)((value << 1) ^ (value >> 31)) : unchecked((uint)value);

    internal static int GetLength(uint value)
    {
        int length = 1;
        while (value >= 0x80)
        {
            value >>= 7;
            length++;
        }

        return length;
    }

    internal static int Write(Span<byte> destination, uint value)
    {
        int i = 0;
        while (value >= 0x80)
        {
            destination[i++] = (byte)(value | 0x80);
            value >>= 7;
        }

        destination[i++] = (byte)value;
        return i;
    }
}
