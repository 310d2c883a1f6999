namespace KafkaProtobuf.Hosting;

/// <summary>
/// The names of the hosted consumers' instruments and tags, on the package's meter (<c>KafkaProtobuf</c>, the
/// deserializers' meter), each tagged
/// with the consumer's name.
/// </summary>
public static class KafkaProtobufConsumerMetrics
{
    /// <summary>Records whose handler completed (their offsets stored).</summary>
    public const string RecordsHandled = "kafkaprotobuf.consumer.records.handled";

    /// <summary>How long each handler run took, failed runs included, in seconds.</summary>
    public const string HandlerDuration = "kafkaprotobuf.consumer.handler.duration";

    /// <summary>Handler runs that failed and were retried.</summary>
    public const string HandlerRetries = "kafkaprotobuf.consumer.handler.retries";

    /// <summary>Records written to the dead-letter topic, tagged <c>reason</c> = <c>deserialization</c> or <c>handler</c>.</summary>
    public const string RecordsDeadLettered = "kafkaprotobuf.consumer.records.dead_lettered";

    /// <summary>How many records each batch handed to a batch handler held.</summary>
    public const string BatchSize = "kafkaprotobuf.consumer.batch.size";

    /// <summary>Batches whose handler completed for the whole batch (a failed batch split into records is not counted).</summary>
    public const string BatchesHandled = "kafkaprotobuf.consumer.batches.handled";

    /// <summary>Records whose handler failed for good sent to a retry topic, tagged <c>tier</c> (1, 2, ...).</summary>
    public const string RecordsSentToRetryTopic = "kafkaprotobuf.consumer.records.sent_to_retry_topic";

    /// <summary>The tag naming the consumer.</summary>
    public const string ConsumerTag = "consumer";

    /// <summary>
    /// Gauge: how many records each assigned partition lags (its end as last fetched, past the last offset stored), tagged
    /// <see cref="ConsumerTag"/>, <see cref="TopicTag"/> and <see cref="PartitionTag"/>; refreshed at most once a second
    /// from what the consumer already knows (no broker request).
    /// </summary>
    public const string Lag = "kafkaprotobuf.consumer.lag";

    /// <summary>The topic of a <see cref="Lag"/> measurement.</summary>
    public const string TopicTag = "topic";

    /// <summary>The partition of a <see cref="Lag"/> measurement.</summary>
    public const string PartitionTag = "partition";

    /// <summary>The tag saying which retry topic's tier a record was sent to.</summary>
    public const string TierTag = "tier";

    /// <summary>The tag saying why a record was dead-lettered.</summary>
    public const string ReasonTag = "reason";
}
