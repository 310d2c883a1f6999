using System;
using Confluent.Kafka;

namespace KafkaProtobuf.Hosting.Consuming;

/// <summary>
/// Wraps a deserializer and keeps a copy of the last bytes it was given, in a buffer it reuses: what a record whose
/// handler failed is dead-lettered with, byte for byte, when the consumer has long handed out the deserialized
/// message. Copying costs a <c>memcpy</c> of the record and allocates nothing once the buffer has grown. The copy is
/// the last record consumed: in sequential mode that is the record in hand until it is concluded; in partition-parallel
/// mode a record the scheduler keeps past its consume takes its own copy first (<c>RecordWork.Keep</c>); a batch copies
/// each of its records' bytes as it takes them (<c>CopiedBytes</c>). With <see cref="ReadsLater"/>, it only copies: the
/// record's processing reads the message from the bytes when a handler takes the record (<see cref="Read"/>), so that a record read
/// ahead holds its bytes alone.
/// </summary>
internal sealed class RawBytesCapture<T>(IDeserializer<T> inner) : IDeserializer<T>
{
    // Reading later runs on handler workers, several at once: the packages' own deserializers and Confluent.Kafka's
    // hold no state to race on; any other is called by one thread at a time, as consuming calls it.
    private readonly object? _oneAtATime = IsSharedSafely(inner) ? null : new object();
    private byte[] _buffer = new byte[256];
    private int _length;
    private bool _isNull;

    /// <summary>Whether consuming leaves the key or value unread (<c>default</c>) for <see cref="Read"/> to read later.</summary>
    public bool ReadsLater { get; set; }

    public T Deserialize(ReadOnlySpan<byte> data, bool isNull, SerializationContext context)
    {
        _isNull = isNull;
        _length = 0;
        if (!isNull)
        {
            if (data.Length > _buffer.Length)
            {
                _buffer = new byte[Math.Max(data.Length, _buffer.Length * 2)];
            }

            data.CopyTo(_buffer);
            _length = data.Length;
        }

        return ReadsLater ? default! : inner.Deserialize(data, isNull, context);
    }

    /// <summary>Reads a key or value consumed with <see cref="ReadsLater"/> (its failure is the deserializer's own exception).</summary>
    public T Read(ReadOnlySpan<byte> data, bool isNull, SerializationContext context)
    {
        if (_oneAtATime is null)
        {
            return inner.Deserialize(data, isNull, context);
        }

        lock (_oneAtATime)
        {
            return inner.Deserialize(data, isNull, context);
        }
    }

    /// <summary>The last bytes (empty for null: see <see cref="LastIsNull"/>), valid until the next record is deserialized.</summary>
    public ReadOnlySpan<byte> Last => _buffer.AsSpan(0, _length);

    /// <summary>Whether the last key or value was null.</summary>
    public bool LastIsNull => _isNull;

    /// <summary>The last bytes, as a new array (for a dead letter), or <see langword="null"/> for a null key or value.</summary>
    public byte[]? ToArray() => _isNull ? null : _buffer.AsSpan(0, _length).ToArray();

    /// <summary>The last bytes' <see cref="KeyHash"/> (a null key hashes as an empty one).</summary>
    public uint Hash() => KeyHash.Of(_buffer.AsSpan(0, _length));

    /// <summary>
    /// The packages' own deserializers, and Confluent.Kafka's built-in ones (not its generic wrappers, such as
    /// <c>AsSyncOverAsync</c>'s, which hold a deserializer of anyone's).
    /// </summary>
    private static bool IsSharedSafely(IDeserializer<T> deserializer)
    {
        Type type = deserializer.GetType();
        return deserializer is MultiTypeProtobufDeserializer
            || (type.IsGenericType && type.GetGenericTypeDefinition() == typeof(FramedProtobufDeserializer<>))
            || (!type.IsGenericType && type.Assembly == typeof(Deserializers).Assembly);
    }
}
