using System;
using System.Threading;

namespace KafkaProtobuf.Caching;

/// <summary>
/// A fixed-capacity map with CLOCK eviction, for caches on a consumer's hot path: a hit takes no lock and allocates
/// nothing; an insert allocates one entry and, once full, evicts an entry not read since the clock hand last passed it.
/// The tables are sized once, so no key sequence (garbage schema ids in poison records) can make it grow or resize.
/// </summary>
/// <remarks>
/// Readers walk immutable-key chains published with volatile writes; writers serialize on a lock. A reader racing an
/// eviction may still return the evicted value, which is harmless for a cache. Shared by the core deserializers and, as
/// linked source, by the registry client.
/// </remarks>
internal sealed class ClockCache<TKey, TValue>
    where TKey : IEquatable<TKey>
    where TValue : class
{
    private readonly Entry?[] _buckets;
    private readonly Entry?[] _ring;
    private readonly int _mask;
    private readonly object _writeLock = new();
    private int _hand;
    private int _count;

    internal ClockCache(int capacity)
    {
        if (capacity < 1)
        {
            throw new ArgumentOutOfRangeException(nameof(capacity), "The capacity must be at least 1.");
        }

        int buckets = 2;
        while (buckets < 2 * capacity)
        {
            buckets <<= 1;
        }

        _buckets = new Entry?[buckets];
        _ring = new Entry?[capacity];
        _mask = buckets - 1;
    }

    internal int Capacity => _ring.Length;

    /// <summary>How many entries the cache holds (a snapshot).</summary>
    internal int Count => Volatile.Read(ref _count);

    internal bool TryGetValue(TKey key, out TValue value)
    {
        for (Entry? entry = Volatile.Read(ref _buckets[key.GetHashCode() & _mask]); entry is not null; entry = Volatile.Read(ref entry.Next))
        {
            if (entry.Key.Equals(key))
            {
                // Only write when it changes: a hit on a hot entry then touches no shared cache line.
                if (entry.Referenced == 0)
                {
                    entry.Referenced = 1;
                }

                value = entry.Value;
                return true;
            }
        }

        value = null!;
        return false;
    }

    /// <summary>Adds the value unless the key is present; returns the cached value either way.</summary>
    internal TValue GetOrAdd(TKey key, TValue value)
    {
        lock (_writeLock)
        {
            int bucket = key.GetHashCode() & _mask;
            for (Entry? entry = _buckets[bucket]; entry is not null; entry = entry.Next)
            {
                if (entry.Key.Equals(key))
                {
                    return entry.Value;
                }
            }

            int slot = _count < _ring.Length ? _count : Evict();
            var added = new Entry(key, value, bucket) { Next = _buckets[bucket] };
            _ring[slot] = added;
            Volatile.Write(ref _buckets[bucket], added);
            if (_count < _ring.Length)
            {
                Volatile.Write(ref _count, _count + 1);
            }

            return value;
        }
    }

    /// <summary>Removes the key, if present.</summary>
    internal void Remove(TKey key)
    {
        lock (_writeLock)
        {
            for (int slot = 0; slot < _count; slot++)
            {
                if (_ring[slot] is { } entry && entry.Key.Equals(key))
                {
                    Unlink(entry);
                    // Keep the ring dense: the last entry takes the freed slot.
                    _ring[slot] = _ring[_count - 1];
                    _ring[_count - 1] = null;
                    Volatile.Write(ref _count, _count - 1);
                    _hand = 0;
                    return;
                }
            }
        }
    }

    /// <summary>Finds a victim (second chance for entries read since the hand last passed), unlinks it, returns its slot.</summary>
    private int Evict()
    {
        while (true)
        {
            Entry victim = _ring[_hand]!;
            int slot = _hand;
            _hand = (_hand + 1) % _ring.Length;
            if (victim.Referenced != 0)
            {
                victim.Referenced = 0;
                continue;
            }

            Unlink(victim);
            return slot;
        }
    }

    private void Unlink(Entry victim)
    {
        // The victim keeps its Next, so a reader standing on it still reaches the rest of the chain.
        if (_buckets[victim.Bucket] == victim)
        {
            Volatile.Write(ref _buckets[victim.Bucket], victim.Next);
            return;
        }

        for (Entry? entry = _buckets[victim.Bucket]; entry is not null; entry = entry.Next)
        {
            if (entry.Next == victim)
            {
                Volatile.Write(ref entry.Next, victim.Next);
                return;
            }
        }
    }

    private sealed class Entry
    {
        internal readonly TKey Key;
        internal readonly TValue Value;
        internal readonly int Bucket;
        internal Entry? Next;
        internal int Referenced;

        internal Entry(TKey key, TValue value, int bucket)
        {
            Key = key;
            Value = value;
            Bucket = bucket;
        }
    }
}

/// <summary>A key compared by reference, for caches keyed by objects without value equality (a <c>FileDescriptor</c>).</summary>
internal readonly struct ReferenceKey<T> : IEquatable<ReferenceKey<T>>
    where T : class
{
    internal ReferenceKey(T value) => Value = value;

    internal T Value { get; }

    public bool Equals(ReferenceKey<T> other) => ReferenceEquals(Value, other.Value);

    public override bool Equals(object? obj) => obj is ReferenceKey<T> other && Equals(other);

    public override int GetHashCode() => System.Runtime.CompilerServices.RuntimeHelpers.GetHashCode(Value);
}
