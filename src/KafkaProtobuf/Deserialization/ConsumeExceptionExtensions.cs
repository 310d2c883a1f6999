using System;
using Confluent.Kafka;

namespace KafkaProtobuf;

/// <summary>
/// What a <see cref="ConsumeException"/> from <c>Consume</c> means for the loop around it: a record that can never be
/// deserialized (dead-letter it), a record whose writer's schema could not be obtained (read it again later), or an
/// error of the consumer or a broker that librdkafka recovers from (log it and go on). Anything else (a fatal error)
/// should end the loop.
/// </summary>
public static class ConsumeExceptionExtensions
{
    /// <summary>
    /// Whether the exception is a key or value deserialization failure caused by the record itself, the kind that
    /// carries the raw record and that consuming again would only repeat: dead-letter it. A record whose writer's
    /// schema could not be obtained (<see cref="IsSchemaUnavailable"/>) is not one.
    /// </summary>
    /// <param name="exception">The consume exception.</param>
    /// <returns>
    /// <see langword="true"/> for <see cref="ErrorCode.Local_KeyDeserialization"/> and
    /// <see cref="ErrorCode.Local_ValueDeserialization"/>, unless the cause is a <see cref="SchemaUnavailableException"/>.
    /// </returns>
    public static bool IsDeserializationFailure(this ConsumeException exception)
    {
        if (exception is null)
        {
            throw new ArgumentNullException(nameof(exception));
        }

        return exception.Error.Code is ErrorCode.Local_KeyDeserialization or ErrorCode.Local_ValueDeserialization
            && exception.ConsumerRecord is not null
            && exception.InnerException is not SchemaUnavailableException;
    }

    /// <summary>
    /// Whether the record could not be deserialized because its writer's schema could not be obtained (a schema registry
    /// timed out or failed): the record is good, so do not dead-letter it and commit nothing past it. Seek back to it
    /// (<c>consumer.Seek(exception.ConsumerRecord.TopicPartitionOffset)</c>), back off, and consume it again.
    /// </summary>
    /// <param name="exception">The consume exception.</param>
    /// <returns><see langword="true"/> when the cause is a <see cref="SchemaUnavailableException"/>.</returns>
    public static bool IsSchemaUnavailable(this ConsumeException exception)
    {
        if (exception is null)
        {
            throw new ArgumentNullException(nameof(exception));
        }

        return exception.InnerException is SchemaUnavailableException && exception.ConsumerRecord is not null;
    }

    /// <summary>
    /// Whether <c>Consume</c> reported an error of the consumer or a broker rather than a record: not fatal and not a
    /// deserialization failure, e.g. a fetch that failed (<see cref="ErrorCode.RequestTimedOut"/>,
    /// <see cref="ErrorCode.NotLeaderForPartition"/>) or <see cref="ErrorCode.Local_MaxPollExceeded"/>. librdkafka
    /// recovers by itself and no record was skipped (the fetch is retried from the same offset), so log it and keep
    /// consuming. A fatal error is not one (let it escape), nor is a deserialization failure (a record: see
    /// <see cref="IsDeserializationFailure"/>).
    /// </summary>
    /// <param name="exception">The consume exception.</param>
    /// <returns>
    /// <see langword="true"/> unless the error is fatal, <see cref="ErrorCode.Local_KeyDeserialization"/> or
    /// <see cref="ErrorCode.Local_ValueDeserialization"/>.
    /// </returns>
    public static bool IsRecoverableConsumerError(this ConsumeException exception)
    {
        if (exception is null)
        {
            throw new ArgumentNullException(nameof(exception));
        }

        return !exception.Error.IsFatal
            && exception.Error.Code is not (ErrorCode.Local_KeyDeserialization or ErrorCode.Local_ValueDeserialization);
    }
}
