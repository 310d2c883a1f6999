using System;
using System.Threading;

namespace KafkaProtobuf.Resolution;

/// <summary>
/// The bounded map behind schema resolution: schema identifier to what was built from its writer's file. A hit takes
/// no lock and allocates nothing. Until the cache is full every answer is kept; once it is full, a key is let in only
/// on its second miss among the last few misses, and then a CLOCK victim (an entry not read since the hand last passed
/// it) makes room.
/// </summary>
/// <remarks>
/// <para>
/// Why the admission rule: with more identifiers in use than the capacity, plain CLOCK or LRU evicts each entry just
/// before it is asked for again, and every lookup misses (300 identifiers round robin through 256 entries: 59,995
/// misses in 60,000). Here the entries that are in stay in: round robin over the capacity plus one misses twice a
/// round, over twice the capacity half the lookups hit, the most any cache of that size can do. A key asked for again
/// soon (a new schema in use) gets in on its second miss.
/// </para>
/// <para>
/// The tables are sized once, so no key sequence (garbage schema ids in poison records) can make it grow or resize.
/// Readers walk immutable-key chains published with volatile writes; writers serialize on a lock. A reader racing an
/// eviction may still get the evicted value, which is harmless for a cache of immutable answers.
/// </para>
/// </remarks>
internal sealed class SchemaCache<TKey, TValue>
    where TKey : IEquatable<TKey>
    where TValue : class
{
    private readonly Entry?[] _buckets;
    private readonly Entry?[] _ring;
    private readonly int _mask;
    private readonly object _writeLock = new();
    private readonly TKey[] _recentMisses;
    private int _recentMissCount;
    private int _nextMiss;
    private int _hand;
    private int _count;

    internal SchemaCache(int capacity)
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

        // Fewer remembered misses than a churning working set misses in a round (so it stays out), enough for a key in
        // real use to come back while it is remembered.
        _recentMisses = new TKey[Math.Max(1, Math.Min(64, capacity / 8))];
    }

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

    /// <summary>
    /// Offers an answer after a miss: kept while the cache is not full, or when the key missed recently too. Returns the
    /// value to use: the one already cached for the key, if another thread got there first, else <paramref name="value"/>.
    /// </summary>
    internal TValue Offer(TKey key, TValue value)
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

            int slot;
            if (_count < _ring.Length)
            {
                slot = _count;
            }
            else if (ForgetRecentMiss(key))
            {
                slot = Evict();
            }
            else
            {
                RememberMiss(key);
                return value;
            }

            var added = new Entry(key, value, bucket) { Next = _buckets[bucket] };
            _ring[slot] = added;
            Volatile.Write(ref _buckets[bucket], added);
            if (_count < _ring.Length)
            {
                _count++;
            }

            return value;
        }
    }

    private bool ForgetRecentMiss(TKey key)
    {
        for (int i = 0; i < _recentMissCount; i++)
        {
            if (_recentMisses[i].Equals(key))
            {
                // The last remembered miss takes its place; the next miss is written over the freed end.
                _recentMissCount--;
                _recentMisses[i] = _recentMisses[_recentMissCount];
                _recentMisses[_recentMissCount] = default!;
                _nextMiss = _recentMissCount;
                return true;
            }
        }

        return false;
    }

    private void RememberMiss(TKey key)
    {
        _recentMisses[_nextMiss] = key;
        if (_recentMissCount < _recentMisses.Length)
        {
            _recentMissCount++;
        }

        _nextMiss = _recentMissCount < _recentMisses.Length ? _recentMissCount : (_nextMiss + 1) % _recentMisses.Length;
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
