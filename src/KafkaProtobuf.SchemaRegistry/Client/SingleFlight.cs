using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Threading.Tasks;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>
/// Concurrent loads of one key share one task, so however many callers ask at once one request is sent. Nothing is kept
/// once it completes, success or failure: caching is the deserializers' (as franz-go's <c>sr</c> client leaves it to
/// its serde).
/// </summary>
internal sealed class SingleFlight<TKey, TValue>
    where TKey : IEquatable<TKey>
{
    private readonly ConcurrentDictionary<TKey, Lazy<Task<TValue>>> _inFlight = new();

    internal Task<TValue> RunAsync(TKey key, Func<TKey, Task<TValue>> load)
    {
        var mine = new Lazy<Task<TValue>>(() => LoadAsync(key, load));
        return _inFlight.GetOrAdd(key, mine).Value;
    }

    private async Task<TValue> LoadAsync(TKey key, Func<TKey, Task<TValue>> load)
    {
        try
        {
            return await load(key).ConfigureAwait(false);
        }
        finally
        {
            if (_inFlight.TryGetValue(key, out Lazy<Task<TValue>>? current))
            {
                ((ICollection<KeyValuePair<TKey, Lazy<Task<TValue>>>>)_inFlight).Remove(new KeyValuePair<TKey, Lazy<Task<TValue>>>(key, current));
            }
        }
    }
}
