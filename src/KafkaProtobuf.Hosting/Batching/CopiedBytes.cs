using System;
using System.Buffers;

namespace KafkaProtobuf.Hosting.Batching;

/// <summary>
/// The key and value bytes of a batch's records, as they were written, for the dead letters of records whose handler
/// failed: copied one after another into one buffer rented from the shared pool (returned when the batch is done), so
/// that a batch costs no array per record.
/// </summary>
internal sealed class CopiedBytes
{
    private const int NullLength = -1;

    private byte[] _buffer = [];
    private (int Start, int Length)[] _slices = [];
    private int _used;
    private int _count;

    /// <summary>The bytes copied so far.</summary>
    public int Length => _used;

    /// <summary>Copies one key's or value's bytes; <paramref name="isNull"/> for a null one.</summary>
    public void Add(ReadOnlySpan<byte> bytes, bool isNull)
    {
        if (_count == _slices.Length)
        {
            Array.Resize(ref _slices, Math.Max(8, _count * 2));
        }

        if (isNull)
        {
            _slices[_count++] = (_used, NullLength);
            return;
        }

        if (_used + bytes.Length > _buffer.Length)
        {
            byte[] larger = ArrayPool<byte>.Shared.Rent(Math.Max(_used + bytes.Length, Math.Max(1_024, _buffer.Length * 2)));
            _buffer.AsSpan(0, _used).CopyTo(larger);
            Return();
            _buffer = larger;
        }

        bytes.CopyTo(_buffer.AsSpan(_used));
        _slices[_count++] = (_used, bytes.Length);
        _used += bytes.Length;
    }

    /// <summary>The <paramref name="index"/>th bytes added, as a new array, or <see langword="null"/> for a null one.</summary>
    public byte[]? ToArray(int index)
    {
        ReadOnlySpan<byte> bytes = Span(index, out bool isNull);
        return isNull ? null : bytes.ToArray();
    }

    /// <summary>The <paramref name="index"/>th bytes added, borrowed (valid until <see cref="ReturnBytes"/>).</summary>
    public ReadOnlySpan<byte> Span(int index, out bool isNull)
    {
        (int start, int length) = _slices[index];
        isNull = length == NullLength;
        return isNull ? default : _buffer.AsSpan(start, length);
    }

    /// <summary>The buffer goes back to the pool; nothing may be read afterwards.</summary>
    public void ReturnBytes()
    {
        Return();
        _buffer = [];
        _used = 0;
        _count = 0;
    }

    private void Return()
    {
        if (_buffer.Length > 0)
        {
            ArrayPool<byte>.Shared.Return(_buffer);
        }
    }
}
