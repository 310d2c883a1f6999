using System.Collections.Generic;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Handling;

namespace KafkaProtobuf.Hosting.Conclusion;

/// <summary>
/// Records whose handler failed for good and whose dead letter (or retry topic's copy) the broker did not take: the
/// consumer was moved back to them, and when one is read again its write is tried again with what its handler made of
/// it the first time, rather than running the handler (and its side effects) again. Loop thread only. At most one a
/// partition as a rule (its partition is read again from it); forgotten when written, or when the partition goes.
/// </summary>
internal sealed class UnwrittenFailures
{
    private readonly Dictionary<(string Topic, int Partition, long Offset), HandlerResult> _failures = [];

    /// <summary>The record's write failed and will be tried again when it is read again.</summary>
    public void Remember(TopicPartitionOffset record, HandlerResult result) =>
        _failures[(record.Topic, record.Partition.Value, record.Offset.Value)] = result;

    /// <summary>A record read again whose handler already failed for good: what it made of it (and the record is forgotten here).</summary>
    public bool TryTake(string topic, Partition partition, Offset offset, out HandlerResult result)
    {
        result = default;
        (string, int, long) key = (topic, partition.Value, offset.Value);
        return _failures.Count > 0 && _failures.TryGetValue(key, out result) && _failures.Remove(key);
    }

    /// <summary>The partitions were taken away: their new owner handles their records.</summary>
    public void Forget(IEnumerable<TopicPartition> partitions)
    {
        if (_failures.Count == 0)
        {
            return;
        }

        var gone = new HashSet<TopicPartition>(partitions);
        foreach ((string Topic, int Partition, long Offset) key in new List<(string, int, long)>(_failures.Keys))
        {
            if (gone.Contains(new TopicPartition(key.Topic, key.Partition)))
            {
                _failures.Remove(key);
            }
        }
    }
}
