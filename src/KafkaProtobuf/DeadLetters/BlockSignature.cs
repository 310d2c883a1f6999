using System;
using System.Buffers;
using System.Collections.Generic;
using System.Security.Cryptography;
using System.Text;
using Confluent.Kafka;

namespace KafkaProtobuf.DeadLetters;

/// <summary>
/// A block's HMAC-SHA256: over the record's key and value, every header before the block's trailer (names and values,
/// the record's own and every earlier block included) and the trailer's text before its signature, each part
/// length-prefixed and a null told from an empty value, so no two records sign alike.
/// </summary>
internal static class BlockSignature
{
    /// <summary>A signature's length: 32 bytes.</summary>
    public const int Bytes = 32;

    private static readonly byte[] Domain = Encoding.ASCII.GetBytes("kafkaprotobuf.block.v1\n");

    /// <summary>The signature with <paramref name="key"/>.</summary>
    public static byte[] Sign(byte[] key, byte[]? recordKey, byte[]? recordValue, Headers headers, int count, string trailerPrefix)
    {
        byte[] input = Input(recordKey, recordValue, headers, count, trailerPrefix, out int length);
        try
        {
            return Hmac(key, input, length);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(input);
        }
    }

    /// <summary>Whether <paramref name="signature"/> is the signature of one of <paramref name="keys"/>.</summary>
    public static bool Verifies(IReadOnlyList<byte[]> keys, byte[]? recordKey, byte[]? recordValue, Headers headers, int count, string trailerPrefix, byte[] signature)
    {
        byte[] input = Input(recordKey, recordValue, headers, count, trailerPrefix, out int length);
        try
        {
            bool verified = false;
            foreach (byte[] key in keys)
            {
                verified |= FixedTimeEquals(Hmac(key, input, length), signature); // every key tried: the time says nothing of which
            }

            return verified;
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(input);
        }
    }

    /// <summary>
    /// Each thread's HMACs, by key (the keys' own copies, compared by reference): making one per call cost a redrive a
    /// quarter of its rate; a few keys at most, so a short list.
    /// </summary>
    [ThreadStatic]
    private static List<(byte[] Key, IncrementalHash Hmac)>? t_hmacs;

    private static byte[] Hmac(byte[] key, byte[] input, int length)
    {
        List<(byte[] Key, IncrementalHash Hmac)> hmacs = t_hmacs ??= [];
        IncrementalHash? hmac = null;
        foreach ((byte[] known, IncrementalHash made) in hmacs)
        {
            if (ReferenceEquals(known, key))
            {
                hmac = made;
                break;
            }
        }

        if (hmac is null)
        {
            if (hmacs.Count >= 8)
            {
                hmacs[0].Hmac.Dispose();
                hmacs.RemoveAt(0);
            }

            hmac = IncrementalHash.CreateHMAC(HashAlgorithmName.SHA256, key);
            hmacs.Add((key, hmac));
        }

        hmac.AppendData(input, 0, length);
        return hmac.GetHashAndReset();
    }

    private static bool FixedTimeEquals(byte[] a, byte[] b)
    {
        if (a.Length != b.Length)
        {
            return false;
        }

        int difference = 0;
        for (int i = 0; i < a.Length; i++)
        {
            difference |= a[i] ^ b[i];
        }

        return difference == 0;
    }

    /// <summary>What is signed, in a pooled buffer of at least <paramref name="length"/> bytes.</summary>
    private static byte[] Input(byte[]? recordKey, byte[]? recordValue, Headers headers, int count, string trailerPrefix, out int length)
    {
        int size = Domain.Length + Part(recordKey) + Part(recordValue) + 4 + PartOf(trailerPrefix);
        for (int i = 0; i < count; i++)
        {
            IHeader header = headers[i];
            size += PartOf(header.Key) + Part(header.GetValueBytes());
        }

        byte[] buffer = ArrayPool<byte>.Shared.Rent(size);
        int at = 0;
        Buffer.BlockCopy(Domain, 0, buffer, 0, Domain.Length);
        at += Domain.Length;
        at = Write(buffer, at, recordKey);
        at = Write(buffer, at, recordValue);
        at = WriteInt(buffer, at, count);
        for (int i = 0; i < count; i++)
        {
            IHeader header = headers[i];
            at = Write(buffer, at, header.Key);
            at = Write(buffer, at, header.GetValueBytes());
        }

        at = Write(buffer, at, trailerPrefix);
        length = at;
        return buffer;
    }

    private static int Part(byte[]? bytes) => 5 + (bytes?.Length ?? 0);

    private static int PartOf(string text) => 5 + Encoding.UTF8.GetByteCount(text);

    private static int Write(byte[] buffer, int at, byte[]? bytes)
    {
        buffer[at++] = bytes is null ? (byte)0 : (byte)1;
        at = WriteInt(buffer, at, bytes?.Length ?? 0);
        if (bytes is { Length: > 0 })
        {
            Buffer.BlockCopy(bytes, 0, buffer, at, bytes.Length);
            at += bytes.Length;
        }

        return at;
    }

    private static int Write(byte[] buffer, int at, string text)
    {
        buffer[at++] = 1;
        int length = Encoding.UTF8.GetBytes(text, 0, text.Length, buffer, at + 4);
        WriteInt(buffer, at, length);
        return at + 4 + length;
    }

    private static int WriteInt(byte[] buffer, int at, int value)
    {
        buffer[at] = (byte)(value >> 24);
        buffer[at + 1] = (byte)(value >> 16);
        buffer[at + 2] = (byte)(value >> 8);
        buffer[at + 3] = (byte)value;
        return at + 4;
    }
}
