namespace KafkaProtobuf.DeadLetters;

/// <summary>What <see cref="DeadLetterExtensions.DeadLetter{TKey, TValue}(Confluent.Kafka.IConsumer{TKey, TValue}, Confluent.Kafka.ConsumeException, Confluent.Kafka.IProducer{byte[], byte[]}, string, System.TimeSpan, DeadLetterOffsetHandling)"/> does with the offset past the record once its dead letter is acknowledged.</summary>
public enum DeadLetterOffsetHandling
{
    /// <summary>
    /// Store it (<c>StoreOffset</c>), as the recommended loop does for every good record, and let the consumer's own
    /// commits carry it: auto-commit, <c>Commit()</c>, the commit on revoke and on <c>Close()</c>. The default, for
    /// consumers with <c>EnableAutoOffsetStore = false</c>.
    /// </summary>
    Store = 0,

    /// <summary>
    /// Store it, then commit it synchronously: for consumers that commit by hand (<c>EnableAutoCommit = false</c>). A
    /// failed commit is reported in <see cref="CopyResult.Offset"/>, never thrown.
    /// </summary>
    StoreAndCommit = 1,
}
