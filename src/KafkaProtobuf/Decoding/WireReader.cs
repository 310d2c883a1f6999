using System;
using System.Collections.Generic;
using KafkaProtobuf.Descriptors;
using KafkaProtobuf.Framing;

namespace KafkaProtobuf.Decoding;

/// <summary>One field occurrence on the wire: its number, wire type, and value (a varint or fixed value, or a slice).</summary>
internal readonly record struct WireField(int Number, WireType Type, ulong Scalar, int Start, int Length, int Position);

/// <summary>Splits a Protobuf encoding into its field occurrences, in order, without knowing the message type.</summary>
internal static class WireReader
{
    /// <summary>How deep messages and groups may nest: Google.Protobuf's default recursion limit.</summary>
    internal const int MaxDepth = 100;

    /// <summary>Every field occurrence of <paramref name="data"/>; a malformed encoding throws <see cref="PayloadDecodeException"/>.</summary>
    public static List<WireField> ReadFields(ReadOnlySpan<byte> data, int baseOffset)
    {
        var fields = new List<WireField>();
        int position = 0;
        while (position < data.Length)
        {
            int tagAt = position;
            ulong tag = ReadVarint(data, ref position, baseOffset);
            int number = (int)(tag >> 3);
            var type = (WireType)(tag & 7);
            if (number <= 0 || tag >> 3 > 536_870_911)
            {
                throw new PayloadDecodeException($"invalid field number {tag >> 3}", baseOffset + tagAt);
            }

            switch (type)
            {
                case WireType.Varint:
                    fields.Add(new WireField(number, type, ReadVarint(data, ref position, baseOffset), 0, 0, fields.Count));
                    break;
                case WireType.Fixed64:
                    Require(data, position, 8, baseOffset, number);
                    fields.Add(new WireField(number, type, System.Buffers.Binary.BinaryPrimitives.ReadUInt64LittleEndian(data.Slice(position)), 0, 0, fields.Count));
                    position += 8;
                    break;
                case WireType.Fixed32:
                    Require(data, position, 4, baseOffset, number);
                    fields.Add(new WireField(number, type, System.Buffers.Binary.BinaryPrimitives.ReadUInt32LittleEndian(data.Slice(position)), 0, 0, fields.Count));
                    position += 4;
                    break;
                case WireType.LengthDelimited:
                    int lengthAt = position;
                    ulong length = ReadVarint(data, ref position, baseOffset);
                    if (length > (ulong)(data.Length - position))
                    {
                        throw new PayloadDecodeException($"field {number} declares {length} bytes, {data.Length - position} are left", baseOffset + lengthAt);
                    }

                    fields.Add(new WireField(number, type, 0, baseOffset + position, (int)length, fields.Count));
                    position += (int)length;
                    break;
                case WireType.StartGroup:
                    int start = position;
                    int end = SkipGroup(data, ref position, number, baseOffset, depth: 1);
                    fields.Add(new WireField(number, type, 0, baseOffset + start, end - start, fields.Count)); // without the end tag
                    break;
                default:
                    throw new PayloadDecodeException($"field {number} has wire type {(int)type}, which does not exist here", baseOffset + tagAt);
            }
        }

        return fields;
    }

    /// <summary>Moves past a group's fields and its end tag; returns where the end tag starts. Groups nest at most <see cref="MaxDepth"/> deep.</summary>
    private static int SkipGroup(ReadOnlySpan<byte> data, ref int position, int number, int baseOffset, int depth)
    {
        if (depth > MaxDepth)
        {
            throw new PayloadDecodeException($"groups nested deeper than {MaxDepth}", baseOffset + position);
        }

        while (true)
        {
            if (position >= data.Length)
            {
                throw new PayloadDecodeException($"group {number} does not end", baseOffset + position);
            }

            int tagAt = position;
            ulong tag = ReadVarint(data, ref position, baseOffset);
            switch ((WireType)(tag & 7))
            {
                case WireType.Varint:
                    ReadVarint(data, ref position, baseOffset);
                    break;
                case WireType.Fixed64:
                    Require(data, position, 8, baseOffset, (int)(tag >> 3));
                    position += 8;
                    break;
                case WireType.Fixed32:
                    Require(data, position, 4, baseOffset, (int)(tag >> 3));
                    position += 4;
                    break;
                case WireType.LengthDelimited:
                    ulong length = ReadVarint(data, ref position, baseOffset);
                    Require(data, position, length, baseOffset, (int)(tag >> 3));
                    position += (int)length;
                    break;
                case WireType.StartGroup:
                    SkipGroup(data, ref position, (int)(tag >> 3), baseOffset, depth + 1);
                    break;
                case WireType.EndGroup when (int)(tag >> 3) == number:
                    return tagAt;
                default:
                    throw new PayloadDecodeException($"group {number} is malformed", baseOffset + position);
            }
        }
    }

    private static void Require(ReadOnlySpan<byte> data, int position, ulong count, int baseOffset, int number)
    {
        if (count > (ulong)(data.Length - position))
        {
            throw new PayloadDecodeException($"field {number} needs {count} bytes, {data.Length - position} are left", baseOffset + position);
        }
    }

    /// <summary>A base-128 varint of at most 10 bytes.</summary>
    public static ulong ReadVarint(ReadOnlySpan<byte> data, ref int position, int baseOffset)
    {
        int start = position;
        ulong value = 0;
        for (int shift = 0; shift < 70; shift += 7)
        {
            if (position >= data.Length)
            {
                throw new PayloadDecodeException("truncated varint", baseOffset + start);
            }

            byte b = data[position++];
            value |= (ulong)(b & 0x7F) << shift;
            if (b < 0x80)
            {
                return value;
            }
        }

        throw new PayloadDecodeException("varint longer than 10 bytes", baseOffset + start);
    }
}
