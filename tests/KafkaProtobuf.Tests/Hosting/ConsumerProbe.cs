using System.Collections.Generic;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Diagnostics;

namespace KafkaProtobuf.Tests.Hosting;

/// <summary>A hosted consumer's probe that ignores every event: a test's probe overrides the ones it records.</summary>
internal abstract class ConsumerProbe : IConsumerProbe
{
    public virtual void Assigned<TKey, TValue>(string consumer, IConsumer<TKey, TValue> client, List<TopicPartition> partitions)
    {
    }

    public virtual void Revoked(string consumer, List<TopicPartitionOffset> partitions)
    {
    }

    public virtual void Delivered(string consumer, TopicPartitionOffset record)
    {
    }

    public virtual void MovedBack(string consumer, TopicPartitionOffset record, bool schemaUnavailable)
    {
    }

    public virtual void DeadLettered(string consumer, TopicPartitionOffset record)
    {
    }

    public virtual void Stored(string consumer, TopicPartitionOffset record)
    {
    }

    public virtual void Committed(string consumer, CommittedOffsets offsets)
    {
    }

    public virtual void ClientError(string consumer, Error error)
    {
    }
}
