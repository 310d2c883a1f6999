using System;
using System.Collections.Generic;
using System.Linq;

namespace KafkaProtobuf.Tests.Support;

/// <summary>
/// A deliberately plain, test-side model of Schema Registry framing, written from the format's description and
/// sharing no code with the package: lists of bytes, long arithmetic, no spans. Tests check the package against it.
/// </summary>
public static class ReferenceFraming
{
    /// <summary>The magic byte, identifier and path, as a serializer writes them.</summary>
    public static byte[] EncodeSchemaIdAndIndexes(SchemaIdentifier id, IReadOnlyList<int> path, bool legacy)
    {
        var bytes = new List<byte>();
        if (id.Id is int intId)
        {
            bytes.Add(0);
            bytes.Add((byte)((uint)intId >> 24));
            bytes.Add((byte)((uint)intId >> 16));
            bytes.Add((byte)((uint)intId >> 8));
            bytes.Add((byte)intId);
        }
        else
        {
            bytes.Add(1);
            string hex = id.Guid!.Value.ToString("N"); // RFC 4122 order, as text
            for (int i = 0; i < 32; i += 2)
            {
                bytes.Add(Convert.ToByte(hex.Substring(i, 2), 16));
            }
        }

        if (path.Count == 1 && path[0] == 0)
        {
            bytes.Add(0);
            return bytes.ToArray();
        }

        AddVarint(bytes, path.Count, legacy);
        foreach (int index in path)
        {
            AddVarint(bytes, index, legacy);
        }

        return bytes.ToArray();
    }

    public static void AddVarint(List<byte> bytes, long value, bool legacy)
    {
        ulong raw = legacy ? (ulong)(uint)value : (ulong)(value >= 0 ? 2 * value : (-2 * value) - 1);
        do
        {
            byte b = (byte)(raw % 128);
            raw /= 128;
            bytes.Add(raw > 0 ? (byte)(b + 128) : b);
        }
        while (raw > 0);
    }

    /// <summary>What a correct reader must conclude about a component.</summary>
    public sealed record Verdict(
        FrameErrorCode Error,
        int Offset,
        FrameErrorLocation Location,
        SchemaIdentifier SchemaId,
        int[]? Path,
        int PayloadOffset,
        SchemaIdPlacement Placement);

    /// <summary>Decodes a component: the header value when there is one (null = no header), the data otherwise.</summary>
    public static Verdict Decode(byte[] data, byte[]? header, bool legacy)
    {
        if (header is not null)
        {
            Verdict h = DecodeBlock(header, legacy, FrameErrorLocation.SchemaIdHeader, out int end);
            if (h.Error == FrameErrorCode.None && end != header.Length)
            {
                return h with { Error = FrameErrorCode.TrailingHeaderBytes, Offset = end, Path = null };
            }

            return h with { PayloadOffset = 0, Placement = SchemaIdPlacement.Header };
        }

        Verdict d = DecodeBlock(data, legacy, FrameErrorLocation.RecordData, out int payloadOffset);
        return d with { PayloadOffset = payloadOffset, Placement = SchemaIdPlacement.Prefix };
    }

    private static Verdict DecodeBlock(byte[] b, bool legacy, FrameErrorLocation location, out int end)
    {
        end = 0;
        Verdict Fail(FrameErrorCode code, int offset, SchemaIdentifier id) => new(code, offset, location, id, null, 0, default);

        if (b.Length == 0)
        {
            return Fail(FrameErrorCode.EmptyData, 0, default);
        }

        SchemaIdentifier id;
        int pos;
        if (b[0] == 0)
        {
            if (b.Length < 5)
            {
                return Fail(FrameErrorCode.TruncatedSchemaId, 1, default);
            }

            id = SchemaIdentifier.FromId((b[1] << 24) | (b[2] << 16) | (b[3] << 8) | b[4]);
            pos = 5;
        }
        else if (b[0] == 1)
        {
            if (b.Length < 17)
            {
                return Fail(FrameErrorCode.TruncatedSchemaId, 1, default);
            }

            id = SchemaIdentifier.FromGuid(Guid.Parse(string.Concat(b.Skip(1).Take(16).Select(x => x.ToString("x2", System.Globalization.CultureInfo.InvariantCulture)))));
            pos = 17;
        }
        else
        {
            return Fail(FrameErrorCode.UnknownMagicByte, 0, default);
        }

        FrameErrorCode ReadVarint(ref int at, out long value)
        {
            value = 0;
            for (int i = 0; ; i++)
            {
                if (at + i >= b.Length)
                {
                    return FrameErrorCode.TruncatedVarint;
                }

                byte x = b[at + i];
                if (i == 4 && x >= 128)
                {
                    return FrameErrorCode.VarintTooLong;
                }

                if (i == 4 && x >= 16)
                {
                    return FrameErrorCode.VarintOverflow;
                }

                value += (long)(x % 128) << (7 * i);
                if (x < 128)
                {
                    at += i + 1;
                    break;
                }
            }

            // As a signed 32-bit number: zigzag, or the unsigned value reinterpreted.
            value = legacy ? (value > int.MaxValue ? value - (1L << 32) : value) : (value % 2 == 0 ? value / 2 : -(value + 1) / 2);
            return FrameErrorCode.None;
        }

        int countAt = pos;
        FrameErrorCode e = ReadVarint(ref pos, out long count);
        if (e != FrameErrorCode.None)
        {
            return Fail(e, countAt, id);
        }

        if (count < 0)
        {
            return Fail(FrameErrorCode.NegativeMessageIndexCount, countAt, id);
        }

        if (count > b.Length - pos)
        {
            return Fail(FrameErrorCode.MessageIndexCountExceedsData, countAt, id);
        }

        var path = new List<int>();
        for (long i = 0; i < count; i++)
        {
            int indexAt = pos;
            e = ReadVarint(ref pos, out long index);
            if (e != FrameErrorCode.None)
            {
                return Fail(e, indexAt, id);
            }

            if (index < 0)
            {
                return Fail(FrameErrorCode.NegativeMessageIndex, indexAt, id);
            }

            path.Add((int)index);
        }

        end = pos;
        return new Verdict(FrameErrorCode.None, 0, location, id, count == 0 ? [0] : path.ToArray(), 0, default);
    }
}
