using Confluent.Kafka;

namespace KafkaProtobuf.Hosting.Consuming;

/// <summary>How a partition's fetching stops, starts and moves (the Kafka consumer's own calls; loop thread only).</summary>
internal interface IPartitionFetching
{
    /// <summary>Stops fetching the partition.</summary>
    void Pause(TopicPartition partition);

    /// <summary>Fetches the partition again.</summary>
    void Resume(TopicPartition partition);

    /// <summary>The partition is read again from <paramref name="record"/>.</summary>
    void Seek(TopicPartitionOffset record);
}
