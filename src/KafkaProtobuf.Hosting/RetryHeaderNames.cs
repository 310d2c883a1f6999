namespace KafkaProtobuf.Hosting;

/// <summary>
/// The headers a record gets when it is copied to a retry topic (<see cref="RetryTopicOptions"/>), after its own and
/// a dead letter's (<c>kafkaprotobuf.error.*</c>, <c>kafkaprotobuf.source.*</c>), one set per hop: a record's headers
/// keep its whole history, the first <c>kafkaprotobuf.source.*</c> naming the record as first read, the last the topic
/// it was read from last.
/// </summary>
public static class RetryHeaderNames
{
    /// <summary>The tier the record was sent to (1, 2, ...), as text.</summary>
    public const string Tier = "kafkaprotobuf.retry.tier";

    /// <summary>When it is due to be handled again: milliseconds since the Unix epoch, UTC, as text.</summary>
    public const string Due = "kafkaprotobuf.retry.due";

    /// <summary>
    /// When its handler first failed for good: milliseconds since the Unix epoch, UTC, as text (written on the first
    /// hop).
    /// </summary>
    public const string FirstFailure = "kafkaprotobuf.retry.first_failure";
}
