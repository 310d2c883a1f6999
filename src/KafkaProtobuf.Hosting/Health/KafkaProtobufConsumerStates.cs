using System.Collections.Concurrent;
using System.Collections.Generic;

namespace KafkaProtobuf.Hosting.Health;

/// <summary>Every hosted consumer's <see cref="ConsumerStatus"/>, by name: a singleton the consumers and the health check share.</summary>
internal sealed class KafkaProtobufConsumerStates
{
    private readonly ConcurrentDictionary<string, ConsumerStatus> _byName = new();

    public ConsumerStatus For(string name) => _byName.GetOrAdd(name, n => new ConsumerStatus(n));

    public ICollection<ConsumerStatus> All => _byName.Values;

    public bool TryGet(string name, out ConsumerStatus status) =>
        _byName.TryGetValue(name, out status!);
}
