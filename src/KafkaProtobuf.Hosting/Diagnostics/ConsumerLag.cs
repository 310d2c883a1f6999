using System.Collections.Generic;
using System.Threading;

namespace KafkaProtobuf.Hosting.Diagnostics;

/// <summary>
/// One consumer's latest lag measurement, per assigned partition: written by its lag meter, read by the health check
/// and the lag gauge (any thread).
/// </summary>
internal sealed class ConsumerLag(string consumer)
{
    private IReadOnlyList<PartitionLag> _latest = [];

    public string Consumer { get; } = consumer;

    /// <summary>The latest measurement (a new list each time: readers keep the one they took).</summary>
    public IReadOnlyList<PartitionLag> Latest => Volatile.Read(ref _latest);

    public void Measured(IReadOnlyList<PartitionLag> lag) => Volatile.Write(ref _latest, lag);
}
