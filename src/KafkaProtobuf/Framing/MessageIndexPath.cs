using System;
using System.Runtime.CompilerServices;
using System.Text;

namespace KafkaProtobuf.Framing;

/// <summary>
/// The message-index path of a record: which message type of the writer's .proto file the payload is. <c>[0]</c> is
/// the first top-level message, <c>[1, 0]</c> the first type nested in the second top-level message (map fields
/// declare hidden nested entry types, which count). A view over the record's bytes, validated when the frame was read:
/// enumerating it allocates nothing.
/// </summary>
/// <remarks>
/// <c>default(MessageIndexPath)</c> is <c>[0]</c>, like the one-byte <c>00</c> encoding of it. A path read with
/// <see cref="MessageIndexOrder.InnermostFirst"/> is enumerated back to front, so it is top level first here too.
/// </remarks>
public readonly ref struct MessageIndexPath
{
    // The index varints after the count; empty when the path was written as the single byte 00 (count 0 = [0]).
    private readonly ReadOnlySpan<byte> _encodedIndexes;
    private const int InnermostFirstBit = 0x80;

    private readonly int _count;

    // The encoding, and whether the bytes are innermost first, in one byte: the path (and every Frame) stays 24 bytes,
    // and the reader passes one value through its loop instead of two.
    private readonly byte _form;

    internal MessageIndexPath(ReadOnlySpan<byte> encodedIndexes, int count, byte form)
    {
        _encodedIndexes = encodedIndexes;
        _count = count;
        _form = form;
    }

    /// <summary>Whether the path's bytes are innermost first (read with <see cref="MessageIndexOrder.InnermostFirst"/>).</summary>
    internal bool WrittenInnermostFirst => (_form & InnermostFirstBit) != 0;

    /// <summary>The form of a path's bytes, for the constructor: its encoding and order.</summary>
    internal static byte Form(MessageIndexEncoding encoding, bool writtenInnermostFirst) => (byte)((int)encoding | (writtenInnermostFirst ? InnermostFirstBit : 0));

    /// <summary>The encoding a <see cref="Form"/> holds.</summary>
    internal static MessageIndexEncoding EncodingOf(byte form) => (MessageIndexEncoding)(form & ~InnermostFirstBit);

    /// <summary>The number of indexes: the nesting depth of the message type, at least 1.</summary>
    public int Count => _count == 0 ? 1 : _count;

    /// <summary>
    /// <see langword="true"/> when the path is <c>[0]</c>, the first top-level message type of the writer's file,
    /// whether it was written as the one byte <c>00</c> or in the long form (<c>02 00</c>).
    /// </summary>
    public bool IsFirstMessageType => _count == 0 || (_count == 1 && this[0] == 0);

    /// <summary>Whether the path was written in the one-byte form <c>00</c> that Confluent's serializers use for <c>[0]</c>.</summary>
    public bool IsShortForm => _count == 0;

    /// <summary>The index at <paramref name="position"/> (0 is the top-level message's index). Costs O(<paramref name="position"/>).</summary>
    /// <param name="position">The depth, from 0 to <see cref="Count"/> - 1.</param>
    /// <returns>The index at that depth.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="position"/> is negative or not less than <see cref="Count"/>.</exception>
    public int this[int position]
    {
        get
        {
            if ((uint)position >= (uint)Count)
            {
                ThrowHelper.ThrowArgumentOutOfRange(nameof(position), "The position must be at least 0 and less than Count.");
            }

            Enumerator e = GetEnumerator();
            for (int i = 0; i <= position; i++)
            {
                e.MoveNext();
            }

            return e.Current;
        }
    }

    /// <summary>Returns an allocation-free enumerator over the indexes, top level first.</summary>
    /// <returns>The enumerator.</returns>
    public Enumerator GetEnumerator() => new(_encodedIndexes, _count, EncodingOf(_form), WrittenInnermostFirst);

    /// <summary>The same bytes read in the other order: what the path is if it was written the other way round.</summary>
    internal MessageIndexPath Reversed() => new(_encodedIndexes, _count, (byte)(_form ^ InnermostFirstBit));

    /// <summary>Copies the indexes into <paramref name="destination"/>.</summary>
    /// <param name="destination">Where to copy; must hold at least <see cref="Count"/> elements.</param>
    /// <returns>The number of indexes copied (<see cref="Count"/>).</returns>
    /// <exception cref="ArgumentException"><paramref name="destination"/> is shorter than <see cref="Count"/>.</exception>
    public int CopyTo(Span<int> destination)
    {
        if (destination.Length < Count)
        {
            throw new ArgumentException("The destination is shorter than the path.", nameof(destination));
        }

        int i = 0;
        foreach (int index in this)
        {
            destination[i++] = index;
        }

        return i;
    }

    /// <summary>Copies the indexes into a new array (allocates; for logging and tests).</summary>
    /// <returns>The indexes, top level first.</returns>
    public int[] ToArray()
    {
        int[] result = new int[Count];
        CopyTo(result);
        return result;
    }

    /// <summary>Compares the path with <paramref name="indexes"/> without allocating.</summary>
    /// <param name="indexes">The expected indexes, top level first.</param>
    /// <returns><see langword="true"/> when both have the same indexes in the same order.</returns>
    public bool SequenceEqual(ReadOnlySpan<int> indexes)
    {
        if (indexes.Length != Count)
        {
            return false;
        }

        int i = 0;
        foreach (int index in this)
        {
            if (indexes[i++] != index)
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>
    /// Formats the path as <c>[1, 2, 0]</c>; a path of more than 16 indexes (only a hostile record has one) as its first
    /// 16 and their count, <c>[0, 0, ..., 0, … 250,000 indexes in all]</c>, so that no message quotes a record at length.
    /// </summary>
    /// <returns>The formatted path.</returns>
    public override string ToString()
    {
        var shown = new System.Collections.Generic.List<int>(Math.Min(Count, ShownIndexes));
        foreach (int index in this)
        {
            if (shown.Count == ShownIndexes)
            {
                break;
            }

            shown.Add(index);
        }

        return Format(shown, Count);
    }

    /// <summary>The most indexes a message shows of a path.</summary>
    internal const int ShownIndexes = 16;

    /// <summary>A path as messages show it (see <see cref="ToString"/>): <paramref name="indexes"/> (at least its first <see cref="ShownIndexes"/>) of a path of <paramref name="count"/>.</summary>
    internal static string Format(System.Collections.Generic.IReadOnlyList<int> indexes, int count)
    {
        var builder = new StringBuilder("[");
        for (int i = 0; i < Math.Min(indexes.Count, ShownIndexes); i++)
        {
            builder.Append(i == 0 ? string.Empty : ", ").Append(indexes[i].ToString(System.Globalization.CultureInfo.InvariantCulture));
        }

        if (count > ShownIndexes)
        {
            builder.Append(", … ").Append(count.ToString("N0", System.Globalization.CultureInfo.InvariantCulture)).Append(" indexes in all");
        }

        return builder.Append(']').ToString();
    }

    /// <summary>Enumerates a <see cref="MessageIndexPath"/> without allocating.</summary>
    public ref struct Enumerator
    {
        private readonly ReadOnlySpan<byte> _encodedIndexes;
        private readonly int _count;
        private readonly MessageIndexEncoding _encoding;
        private readonly bool _backwards;
        private int _position;
        private int _returned;

        internal Enumerator(ReadOnlySpan<byte> encodedIndexes, int count, MessageIndexEncoding encoding, bool backwards)
        {
            _encodedIndexes = encodedIndexes;
            _count = count == 0 ? 1 : count;
            _encoding = encoding;
            _backwards = backwards;
            _position = backwards ? encodedIndexes.Length : 0;
            _returned = 0;
            Current = 0;
        }

        /// <summary>The index at the enumerator's position.</summary>
        public int Current { get; private set; }

        /// <summary>Advances to the next index.</summary>
        /// <returns><see langword="false"/> after the last index.</returns>
        public bool MoveNext()
        {
            if (_returned == _count)
            {
                return false;
            }

            if (_backwards)
            {
                return MovePrevious(); // out of line: the root-first walk every deserializer does stays small enough to inline
            }

            // The short form 00 has no index bytes: its only index is 0.
            Current = _encodedIndexes.IsEmpty ? 0 : Varint.Decode(Varint.ReadValidated(_encodedIndexes, ref _position), _encoding);
            _returned++;
            return true;
        }

        /// <summary>
        /// Reads the varint that ends just before the position and moves the position to its start. The bytes were
        /// validated, so a varint's last byte is the one with the high bit clear and every byte before it in the same
        /// varint has it set: the start is found by walking back.
        /// </summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        private bool MovePrevious()
        {
            if (_encodedIndexes.IsEmpty)
            {
                Current = 0;
            }
            else
            {
                int start = _position - 1;
                while (start > 0 && (_encodedIndexes[start - 1] & 0x80) != 0)
                {
                    start--;
                }

                _position = start;
                Current = Varint.Decode(Varint.ReadValidated(_encodedIndexes, ref start), _encoding);
            }

            _returned++;
            return true;
        }
    }
}
