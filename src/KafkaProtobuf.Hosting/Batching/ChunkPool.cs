using System;
using System.Collections.Generic;

namespace KafkaProtobuf.Hosting.Batching;

/// <summary>
/// Chunks of concluded batches' copies, kept for the next batches to copy into, up to a small total: a steady stream of
/// batches allocates no buffer per batch, and when the stream stops at most <c>maxKeptBytes</c> of empty chunks stay in
/// memory (a shared pool would keep whatever a burst of large batches gave it back). Loop thread only: batches copy
/// their records' bytes and let them go there.
/// </summary>
/// <param name="maxKeptBytes">The most the kept chunks may hold together.</param>
internal sealed class ChunkPool(long maxKeptBytes)
{
    private readonly List<byte[]> _kept = [];
    private long _keptBytes;

    /// <summary>A chunk of at least <paramref name="atLeast"/> bytes, <paramref name="wanted"/> if a new one is made.</summary>
    public byte[] Rent(int atLeast, int wanted)
    {
        for (int i = _kept.Count - 1; i >= 0; i--)
        {
            byte[] chunk = _kept[i];
            if (chunk.Length >= atLeast)
            {
                _kept.RemoveAt(i);
                _keptBytes -= chunk.Length;
                return chunk;
            }
        }

        return new byte[Math.Max(atLeast, wanted)];
    }

    /// <summary>A chunk no batch reads any more: kept if there is room, else left to the GC.</summary>
    public void Return(byte[] chunk)
    {
        if (_keptBytes + chunk.Length <= maxKeptBytes)
        {
            _kept.Add(chunk);
            _keptBytes += chunk.Length;
        }
    }
}
