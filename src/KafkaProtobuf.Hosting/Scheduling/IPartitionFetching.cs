using Confluent.Kafka;

namespace KafkaProtobuf.Hosting.Scheduling;

/// <summary>How the scheduler stops and starts fetching a partition (on the loop thread).</summary>
internal interface IPartitionFetching
{
    /// <summary>Stops fetching the partition.</summary>
    void Pause(TopicPartition partition);

    /// <summary>Fetches the partition again, from <paramref name="readAgainFrom"/> when given.</summary>
    void Resume(TopicPartition partition, TopicPartitionOffset? readAgainFrom);
}
