using System;
using System.Collections.Generic;
using Confluent.Kafka;
using Microsoft.Extensions.Logging;

namespace KafkaProtobuf.Hosting.Diagnostics;

/// <summary>
/// The hosted consumers' log messages: one event id each, never a record's bytes (topics, partitions, offsets and
/// errors only).
/// </summary>
internal static partial class ConsumerLog
{
    [LoggerMessage(EventId = 1, Level = LogLevel.Information, Message = "KafkaProtobuf consumer {Consumer} started on {Topics}")]
    public static partial void Started(ILogger logger, string consumer, IEnumerable<string> topics);

    [LoggerMessage(
        EventId = 2,
        Level = LogLevel.Information,
        Message = "KafkaProtobuf consumer {Consumer} stopped: offsets of handled records committed, group left")]
    public static partial void Stopped(ILogger logger, string consumer);

    [LoggerMessage(
        EventId = 3,
        Level = LogLevel.Warning,
        Message = "KafkaProtobuf consumer {Consumer}: the handler failed on {Record} (attempt {Attempt} of "
            + "{MaxAttempts}); retrying in {Delay}")]
    public static partial void HandlerRetrying(
        ILogger logger, string consumer, string record, int attempt, int maxAttempts, TimeSpan delay, Exception exception);

    [LoggerMessage(
        EventId = 4,
        Level = LogLevel.Warning,
        Message = "KafkaProtobuf consumer {Consumer}: {Record} dead-lettered to {DeadLetter} ({Reason}: {Error})")]
    public static partial void DeadLettered(ILogger logger, string consumer, string record, string deadLetter, string reason, string error);

    [LoggerMessage(
        EventId = 5,
        Level = LogLevel.Warning,
        Message = "KafkaProtobuf consumer {Consumer}: {Record} could not be written to {Topic} ({Error}); reading the "
            + "record again in {Delay} to write it again (a handler that failed on it is not run again)")]
    public static partial void DeadLetterRetrying(
        ILogger logger, string consumer, string record, string topic, string error, TimeSpan delay);

    [LoggerMessage(
        EventId = 6,
        Level = LogLevel.Warning,
        Message = "KafkaProtobuf consumer {Consumer}: the writer's schema of {Record} could not be obtained; reading it again in {Delay}")]
    public static partial void SchemaUnavailable(ILogger logger, string consumer, string record, TimeSpan delay, Exception exception);

    [LoggerMessage(
        EventId = 7, Level = LogLevel.Warning, Message = "KafkaProtobuf consumer {Consumer}: {Error} (librdkafka retries by itself)")]
    public static partial void ConsumerError(ILogger logger, string consumer, string error);

    [LoggerMessage(EventId = 8, Level = LogLevel.Critical, Message = "KafkaProtobuf consumer {Consumer} stopped on a failure: {Reason}")]
    public static partial void Failed(ILogger logger, string consumer, string reason, Exception? exception);

    [LoggerMessage(
        EventId = 9,
        Level = LogLevel.Warning,
        Message = "KafkaProtobuf consumer {Consumer}: the host's shutdown timeout ran out with a handler still running "
            + "on {Record}: it was cancelled, and the record is not committed")]
    public static partial void HandlerCancelled(ILogger logger, string consumer, string record);

    [LoggerMessage(
        EventId = 10,
        Level = LogLevel.Debug,
        Message = "KafkaProtobuf consumer {Consumer}: the offset of {Topic} [{Partition}] @{Offset} was not stored "
            + "({Error}): its partition was revoked while the record was handled, and its new owner reads it again")]
    public static partial void OffsetNotStored(ILogger logger, string consumer, string topic, int partition, long offset, ErrorCode error);

    [LoggerMessage(
        EventId = 11,
        Level = LogLevel.Error,
        Message = "KafkaProtobuf consumer {Consumer}: closing the consumer failed; offsets stored since the last commit may be read again")]
    public static partial void CloseFailed(ILogger logger, string consumer, Exception exception);

    [LoggerMessage(EventId = 12, Level = LogLevel.Warning, Message = "KafkaProtobuf consumer {Consumer}: {Error}")]
    public static partial void ClientError(ILogger logger, string consumer, string error);

    [LoggerMessage(EventId = 13, Message = "KafkaProtobuf consumer {Consumer}: librdkafka {Facility}: {Text}")]
    public static partial void Librdkafka(ILogger logger, LogLevel level, string consumer, string facility, string text);

    [LoggerMessage(
        EventId = 14, Level = LogLevel.Information, Message = "KafkaProtobuf consumer {Consumer}: partitions assigned: {Partitions}")]
    public static partial void Assigned(ILogger logger, string consumer, PartitionList partitions);

    [LoggerMessage(
        EventId = 15, Level = LogLevel.Information, Message = "KafkaProtobuf consumer {Consumer}: partitions {How}: {Partitions}")]
    public static partial void Revoked(ILogger logger, string consumer, string how, PartitionList partitions);

    [LoggerMessage(
        EventId = 16,
        Level = LogLevel.Warning,
        Message = "KafkaProtobuf consumer {Consumer}: a commit failed ({Error}); the next commit carries the offsets, "
            + "or records after the last committed one are read again")]
    public static partial void CommitFailed(ILogger logger, string consumer, string error);

    [LoggerMessage(
        EventId = 17,
        Level = LogLevel.Warning,
        Message = "KafkaProtobuf consumer {Consumer}: the batch handler failed for good on {Batch}; handling its "
            + "{Count} records one at a time, so that only those that still fail are dead-lettered")]
    public static partial void BatchSplit(ILogger logger, string consumer, string batch, int count, Exception exception);

    [LoggerMessage(
        EventId = 18,
        Level = LogLevel.Warning,
        Message = "KafkaProtobuf consumer {Consumer}: {Record} sent to retry topic {Topic}, due at {Due:O} ({Error})")]
    public static partial void SentToRetryTopic(
        ILogger logger, string consumer, string record, string topic, DateTimeOffset due, string error);

    [LoggerMessage(
        EventId = 19,
        Level = LogLevel.Warning,
        Message = "KafkaProtobuf consumer {Consumer}: {Record} was written to {Topic} (as {Written}) but its offset was "
            + "not stored ({Error}): its partition is no longer this consumer's, and its new owner reads it, and writes it, again")]
    public static partial void WrittenNotStored(ILogger logger, string consumer, string record, string topic, string written, string error);

    [LoggerMessage(
        EventId = 20,
        Level = LogLevel.Warning,
        Message = "KafkaProtobuf consumer {Consumer}: CopyTimeout ({CopyTimeout}) is more than half of max.poll.interval.ms "
            + "({MaxPollInterval}); a copy is waited for {Effective} at most, so that the loop polls in time and the "
            + "member stays in its group")]
    public static partial void CopyTimeoutCut(
        ILogger logger, string consumer, TimeSpan copyTimeout, TimeSpan maxPollInterval, TimeSpan effective);
}
