using System;
using System.Buffers.Binary;

namespace KafkaProtobuf.Framing;

/// <summary>
/// GUIDs in RFC 4122 byte order, as Schema Registry writes them. <c>new Guid(byte[])</c> and
/// <c>Guid.ToByteArray()</c> use a mixed-endian layout and would scramble the first three groups.
/// </summary>
internal static class BigEndianGuid
{
    internal const int Length = 16;

    internal static Guid Read(ReadOnlySpan<byte> source) => new(
        BinaryPrimitives.ReadInt32BigEndian(source),
        BinaryPrimitives.ReadInt16BigEndian(source.Slice(4)),
        BinaryPrimitives.ReadInt16BigEndian(source.Slice(6)),
        source[8],
        source[9],
        source[10],
        source[11],
        source[12],
        source[13],
        source[14],
        source[15]);

    internal static void Write(Span<byte> destination, Guid value)
    {
#if NET8_0_OR_GREATER
        value.TryWriteBytes(destination, bigEndian: true, out _);
#else
        byte[] mixedEndian = value.ToByteArray();
        BinaryPrimitives.WriteInt32BigEndian(destination, BinaryPrimitives.ReadInt32LittleEndian(mixedEndian));
        BinaryPrimitives.WriteInt16BigEndian(destination.Slice(4), BinaryPrimitives.ReadInt16LittleEndian(mixedEndian.AsSpan(4)));
        BinaryPrimitives.WriteInt16BigEndian(destination.Slice(6), BinaryPrimitives.ReadInt16LittleEndian(mixedEndian.AsSpan(6)));
        mixedEndian.AsSpan(8, 8).CopyTo(destination.Slice(8));
#endif
    }
}
