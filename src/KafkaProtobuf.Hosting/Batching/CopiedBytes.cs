using System;
using System.Collections.Generic;

namespace KafkaProtobuf.Hosting.Batching;

/// <summary>
/// The key and value bytes of a batch's records, as they were written, for the dead letters of records whose handler
/// failed: copied one after another into chunks, each key or value whole in one, so that a batch costs no array per
/// record. The first chunk is sized from the batch before, later ones double up to <see cref="LargestChunk"/>, so a
/// batch holds little more than its bytes and never copies them twice; chunks come from, and go back to, the
/// collector's own small <see cref="ChunkPool"/> when there is one.
/// </summary>
/// <param name="expectedBytes">How many bytes the batch is likely to copy (the batch before's).</param>
/// <param name="pool">Where chunks come from and go back to; none: each is allocated, and left to the GC.</param>
internal sealed class CopiedBytes(int expectedBytes = 0, ChunkPool? pool = null)
{
    /// <summary>The most a chunk grows to (a larger key or value gets a chunk of its own size).</summary>
    internal const int LargestChunk = 256 * 1024;

    private const int SmallestChunk = 1_024;
    private const int NullLength = -1;

    private readonly List<byte[]> _chunks = [];
    private (int Chunk, int Start, int Length)[] _slices = [];
    private int _count;
    private int _usedInLast;

    /// <summary>The bytes copied so far (past 2 GiB in a batch as large as a large read-ahead budget lets it grow).</summary>
    public long Length { get; private set; }

    /// <summary>What the chunks hold in memory, used or not.</summary>
    public long Capacity { get; private set; }

    /// <summary>Copies one key's or value's bytes; <paramref name="isNull"/> for a null one.</summary>
    public void Add(ReadOnlySpan<byte> bytes, bool isNull)
    {
        if (_count == _slices.Length)
        {
            Array.Resize(ref _slices, Math.Max(8, _count * 2));
        }

        if (isNull)
        {
            _slices[_count++] = (-1, 0, NullLength);
            return;
        }

        if (_chunks.Count == 0 || _chunks[_chunks.Count - 1].Length - _usedInLast < bytes.Length)
        {
            int next = _chunks.Count == 0
                ? Math.Min(Math.Max(SmallestChunk, expectedBytes), LargestChunk)
                : Math.Min(_chunks[_chunks.Count - 1].Length * 2, LargestChunk);
            byte[] chunk = pool?.Rent(bytes.Length, next) ?? new byte[Math.Max(next, bytes.Length)];
            _chunks.Add(chunk);
            Capacity += chunk.Length;
            _usedInLast = 0;
        }

        bytes.CopyTo(_chunks[_chunks.Count - 1].AsSpan(_usedInLast));
        _slices[_count++] = (_chunks.Count - 1, _usedInLast, bytes.Length);
        _usedInLast += bytes.Length;
        Length += bytes.Length;
    }

    /// <summary>The <paramref name="index"/>th bytes added, as a new array, or <see langword="null"/> for a null one.</summary>
    public byte[]? ToArray(int index)
    {
        ReadOnlySpan<byte> bytes = Span(index, out bool isNull);
        return isNull ? null : bytes.ToArray();
    }

    /// <summary>The <paramref name="index"/>th bytes added, borrowed (valid until <see cref="ReleaseBytes"/>).</summary>
    public ReadOnlySpan<byte> Span(int index, out bool isNull)
    {
        (int chunk, int start, int length) = _slices[index];
        isNull = length == NullLength;
        return isNull ? default : _chunks[chunk].AsSpan(start, length);
    }

    /// <summary>The bytes are let go (the batch was concluded or dropped); nothing may be read afterwards.</summary>
    public void ReleaseBytes()
    {
        if (pool is not null)
        {
            foreach (byte[] chunk in _chunks)
            {
                pool.Return(chunk);
            }
        }

        _chunks.Clear();
        _count = 0;
        _usedInLast = 0;
        Length = 0;
        Capacity = 0;
    }
}
