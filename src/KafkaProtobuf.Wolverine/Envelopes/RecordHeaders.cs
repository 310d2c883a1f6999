using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.IO;
using System.Text;
using Confluent.Kafka;

namespace KafkaProtobuf.Wolverine.Envelopes;

/// <summary>
/// A record's Kafka headers as one text value an <c>Envelope</c> can carry (its headers are strings, and are what a
/// durable inbox stores): every header in order, duplicates and null values kept, each value's bytes exactly, so that a
/// record written again (to a dead-letter queue) carries the headers it was read with, binary ones binary. Wolverine's
/// own mapper decodes each value as UTF-8 text instead: a 19-byte binary schema-id header came back 35 bytes long.
/// </summary>
internal static class RecordHeaders
{
    /// <summary>The most headers a carried list holds when read back: far above what a broker lets a record carry.</summary>
    private const int MaxHeaders = 100_000;

    /// <summary>No headers, encoded (most records: nothing to allocate).</summary>
    private static readonly string None = Convert.ToBase64String(new byte[4]);

    /// <summary>The headers, encoded: base64 of (count, then each key's length and bytes, and -1 or the value's length and bytes).</summary>
    public static string Encode(Confluent.Kafka.Headers? headers)
    {
        if (headers is null || headers.Count == 0)
        {
            return None;
        }

        using var buffer = new MemoryStream();
        Span<byte> number = stackalloc byte[4];
        Write(buffer, number, headers.Count);
        foreach (IHeader header in headers)
        {
            byte[] key = Encoding.UTF8.GetBytes(header.Key);
            Write(buffer, number, key.Length);
            buffer.Write(key);
            byte[]? value = header.GetValueBytes();
            Write(buffer, number, value?.Length ?? -1);
            if (value is not null)
            {
                buffer.Write(value);
            }
        }

        return Convert.ToBase64String(buffer.GetBuffer(), 0, (int)buffer.Length);
    }

    /// <summary>Headers encoded by <see cref="Encode"/>, in their order.</summary>
    /// <exception cref="FormatException">The text is not such an encoding.</exception>
    public static Confluent.Kafka.Headers Decode(string encoded)
    {
        byte[] bytes = Convert.FromBase64String(encoded);
        var reader = new Reader(bytes);
        int count = reader.Length(MaxHeaders);
        var headers = new Confluent.Kafka.Headers();
        for (int i = 0; i < count; i++)
        {
            string key = Encoding.UTF8.GetString(reader.Bytes(reader.Length(bytes.Length)));
            int valueLength = reader.Int();
            byte[]? value = valueLength == -1 ? null : reader.Bytes(Reader.Checked(valueLength, bytes.Length)).ToArray();
            headers.Add(key, value);
        }

        if (!reader.AtEnd)
        {
            throw new FormatException("The carried headers have bytes after their last header.");
        }

        return headers;
    }

    /// <summary>The record headers an envelope carries (<see cref="EnvelopeHeaderNames.RecordHeaders"/>), or null if it carries none.</summary>
    public static Confluent.Kafka.Headers? Of(global::Wolverine.Envelope envelope) =>
        envelope.Headers.TryGetValue(EnvelopeHeaderNames.RecordHeaders, out string? carried) && carried is not null ? Decode(carried) : null;

    /// <summary>Whether a header's value is UTF-8 text (read and written back, it gives its bytes): a handler can read it as a string.</summary>
    public static bool IsText(byte[] value, out string text)
    {
        try
        {
            text = StrictUtf8.GetString(value);
            return true;
        }
        catch (DecoderFallbackException)
        {
            text = string.Empty;
            return false;
        }
    }

    private static readonly UTF8Encoding StrictUtf8 = new(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: true);

    private static void Write(Stream buffer, Span<byte> number, int value)
    {
        BinaryPrimitives.WriteInt32LittleEndian(number, value);
        buffer.Write(number);
    }

    private ref struct Reader(ReadOnlySpan<byte> bytes)
    {
        private readonly ReadOnlySpan<byte> _bytes = bytes;
        private int _at;

        public readonly bool AtEnd => _at == _bytes.Length;

        public int Int()
        {
            if (_bytes.Length - _at < 4)
            {
                throw new FormatException("The carried headers end inside a length.");
            }

            int value = BinaryPrimitives.ReadInt32LittleEndian(_bytes.Slice(_at, 4));
            _at += 4;
            return value;
        }

        public int Length(int max) => Checked(Int(), max);

        public static int Checked(int length, int max) =>
            length >= 0 && length <= max ? length : throw new FormatException("The carried headers hold a length out of range: " + length + ".");

        public ReadOnlySpan<byte> Bytes(int length)
        {
            if (_bytes.Length - _at < length)
            {
                throw new FormatException("The carried headers end inside a header.");
            }

            ReadOnlySpan<byte> slice = _bytes.Slice(_at, length);
            _at += length;
            return slice;
        }
    }
}
