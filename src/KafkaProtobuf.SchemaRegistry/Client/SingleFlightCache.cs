using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics;
using System.Threading.Tasks;
using KafkaProtobuf.Caching;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>
/// Answers kept in a bounded CLOCK cache, loaded once however many callers ask at the same time (single flight), with
/// failures not kept, or kept for a short time when asked to.
/// </summary>
internal sealed class SingleFlightCache<TKey, TValue>
    where TKey : IEquatable<TKey>
    where TValue : class
{
    private readonly ClockCache<TKey, TValue> _values;
    private readonly ConcurrentDictionary<TKey, Lazy<Task<TValue>>> _inFlight = new();
    private readonly ClockCache<TKey, Failure>? _failures;
    private readonly long _failureTicks;

    internal SingleFlightCache(int capacity, TimeSpan failureCacheTime)
    {
        _values = new ClockCache<TKey, TValue>(capacity);
        if (failureCacheTime > TimeSpan.Zero)
        {
            _failures = new ClockCache<TKey, Failure>(capacity);
            _failureTicks = (long)(failureCacheTime.TotalSeconds * Stopwatch.Frequency);
        }
    }

    /// <summary>A cached answer, without a lock or an allocation.</summary>
    internal bool TryGet(TKey key, out TValue value) => _values.TryGetValue(key, out value);

    /// <summary>Puts an answer learnt another way (e.g. a schema read by subject and version is also the schema of its id).</summary>
    internal void Add(TKey key, TValue value) => _values.GetOrAdd(key, value);

    internal Task<TValue> GetAsync(TKey key, Func<TKey, Task<TValue>> load)
    {
        if (_values.TryGetValue(key, out TValue value))
        {
            return Task.FromResult(value);
        }

        if (_failures is not null && _failures.TryGetValue(key, out Failure failure) && Stopwatch.GetTimestamp() < failure.Until)
        {
            return Task.FromException<TValue>(failure.Exception);
        }

        var mine = new Lazy<Task<TValue>>(() => LoadAsync(key, load));
        Lazy<Task<TValue>> flight = _inFlight.GetOrAdd(key, mine);
        return flight.Value;
    }

    private async Task<TValue> LoadAsync(TKey key, Func<TKey, Task<TValue>> load)
    {
        try
        {
            TValue value = await load(key).ConfigureAwait(false);
            return _values.GetOrAdd(key, value);
        }
        catch (Exception e) when (_failures is not null)
        {
            // Failures are replaced, not added, so the newest one counts.
            _failures.Remove(key);
            _failures.GetOrAdd(key, new Failure(e, Stopwatch.GetTimestamp() + _failureTicks));
            throw;
        }
        finally
        {
            if (_inFlight.TryGetValue(key, out Lazy<Task<TValue>>? current))
            {
                ((ICollection<KeyValuePair<TKey, Lazy<Task<TValue>>>>)_inFlight).Remove(new KeyValuePair<TKey, Lazy<Task<TValue>>>(key, current));
            }
        }
    }

    private sealed class Failure(Exception exception, long until)
    {
        internal Exception Exception { get; } = exception;

        internal long Until { get; } = until;
    }
}
