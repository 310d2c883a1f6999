using System;
using System.Collections.Generic;
using System.Diagnostics;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using Microsoft.Extensions.Logging;

namespace KafkaProtobuf.Hosting.Diagnostics;

/// <summary>
/// Where the conclusion's events go: each is written once here to every channel that reports it (the record's span, the
/// metrics, the log, the diagnostic events), so that no channel misses an event another one has.
/// </summary>
internal sealed class ConclusionEvents
{
    private readonly string _consumer;
    private readonly ILogger _logger;
    private readonly ConsumerDiagnostics _diagnostics;
    private readonly KeyValuePair<string, object?> _tag;

    public ConclusionEvents(string consumer, ILogger logger, ConsumerDiagnostics diagnostics)
    {
        _consumer = consumer;
        _logger = logger;
        _diagnostics = diagnostics;
        _tag = new KeyValuePair<string, object?>(KafkaProtobufConsumerMetrics.ConsumerTag, consumer);
    }

    /// <summary>
    /// A record was written to the dead-letter topic, and its offset stored unless <paramref name="written"/> says
    /// otherwise.
    /// </summary>
    public void DeadLettered(
        Activity? activity, TopicPartitionOffset record, string topic, bool handlerFailure, Exception failure, CopyResult written)
    {
        string reason = handlerFailure ? "handler" : "deserialization";
        ConsumerTracing.DeadLettered(activity, topic, reason);
        _diagnostics.DeadLettered(record);
        ConsumerMetrics.DeadLetter(_tag, handlerFailure);
        if (!NotStored(record, topic, written))
        {
            ConsumerLog.DeadLettered(_logger, _consumer, PositionText.Of(record), topic, reason, BoundedText.Describe(failure));
        }
    }

    /// <summary>A record was copied to a retry topic and its offset stored (or, <paramref name="written"/> saying so, not).</summary>
    public void SentToRetryTopic(
        Activity? activity, TopicPartitionOffset record, string topic, int tier, DateTimeOffset due, Exception failure, CopyResult written)
    {
        ConsumerTracing.SentToRetryTopic(activity, topic, tier);
        ConsumerMetrics.SentToRetryTopic(_tag, tier);
        if (!NotStored(record, topic, written))
        {
            ConsumerLog.SentToRetryTopic(_logger, _consumer, PositionText.Of(record), topic, due, BoundedText.Describe(failure));
        }
    }

    /// <summary>
    /// A write (a dead letter, a retry copy) failed for now: the consumer went back to the record, to write it again
    /// after <paramref name="delay"/>.
    /// </summary>
    public void WriteRetrying(
        Activity? activity, TopicPartitionOffset record, string topic, string why, TimeSpan delay, DeadLetterException failure)
    {
        ConsumerLog.DeadLetterRetrying(_logger, _consumer, PositionText.Of(record), topic, why, delay);
        ConsumerTracing.DeadLetterFailed(activity, failure);
        _diagnostics.MovedBack(record, schemaUnavailable: false);
    }

    /// <summary>
    /// Whether the record was written but its offset not stored (its partition is no longer this consumer's: the new
    /// owner reads it, and writes it, again); logged as such rather than as done.
    /// </summary>
    private bool NotStored(TopicPartitionOffset record, string topic, CopyResult written)
    {
        if (written.Offset != OffsetOutcome.NotStored)
        {
            return false;
        }

        ConsumerLog.WrittenNotStored(
            _logger,
            _consumer,
            PositionText.Of(record),
            topic,
            PositionText.Of(written.Copy),
            written.OffsetError?.ToString() ?? "no reason given");
        return true;
    }
}
