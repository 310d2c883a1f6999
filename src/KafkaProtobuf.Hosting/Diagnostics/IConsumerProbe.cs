using System.Collections.Generic;
using Confluent.Kafka;

namespace KafkaProtobuf.Hosting.Diagnostics;

/// <summary>
/// Everything a hosted consumer did, event by event, on its own threads: for tests that must account for every delivery
/// (the chaos test explains each record read twice). Registered as a singleton; none in production.
/// </summary>
internal interface IConsumerProbe
{
    /// <summary>Partitions were assigned; <paramref name="client"/> may be asked for their committed offsets now.</summary>
    void Assigned<TKey, TValue>(string consumer, IConsumer<TKey, TValue> client, List<TopicPartition> partitions);

    void Revoked(string consumer, List<TopicPartitionOffset> partitions);

    /// <summary>Consume gave the loop this record (good, poison, or one whose writer's schema is unavailable).</summary>
    void Delivered(string consumer, TopicPartitionOffset record);

    /// <summary>The consumer was moved back to this record (its dead letter failed, or its schema was unavailable).</summary>
    void MovedBack(string consumer, TopicPartitionOffset record, bool schemaUnavailable);

    void DeadLettered(string consumer, TopicPartitionOffset record);

    /// <summary>The record's offset was stored: it and, in its partition, every earlier record are done with.</summary>
    void Stored(string consumer, TopicPartitionOffset record);

    void Committed(string consumer, CommittedOffsets offsets);

    void ClientError(string consumer, Error error);
}
