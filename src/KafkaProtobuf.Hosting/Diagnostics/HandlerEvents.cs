using System;
using System.Collections.Generic;
using System.Diagnostics;
using Confluent.Kafka;
using Microsoft.Extensions.Logging;

namespace KafkaProtobuf.Hosting.Diagnostics;

/// <summary>
/// What happens as a handler runs (started, ran, retrying, cancelled, failed for good, a batch split), each written
/// by one call to the span, the metrics and the log, as <see cref="ConclusionEvents"/> writes what follows it.
/// </summary>
internal sealed class HandlerEvents
{
    private readonly string _consumer;
    private readonly ILogger _logger;
    private readonly KeyValuePair<string, object?> _tag;
    private MessagingAttributes? _messaging;

    public HandlerEvents(string consumer, ILogger logger)
    {
        _consumer = consumer;
        _logger = logger;
        _tag = new KeyValuePair<string, object?>(KafkaProtobufConsumerMetrics.ConsumerTag, consumer);
    }

    /// <summary>A handler call starts: the timestamp <see cref="Ran"/> measures from (0 when no one listens).</summary>
    public static long Starting() => ConsumerMetrics.HandlerStarting();

    /// <summary>At the start: whether the OpenTelemetry messaging metrics are recorded too, with the consumer group's name.</summary>
    public void UseMessagingConventions(bool on, string? group) => _messaging = on ? new MessagingAttributes(group) : null;

    /// <summary>
    /// A handler call on <paramref name="work"/> ended, having handled <paramref name="records"/> records (0 when it
    /// failed with <paramref name="failure"/>).
    /// </summary>
    public void Ran<TWork>(long started, int records, TWork work, Func<TWork, TopicPartition?> partitionOf, Exception? failure)
    {
        ConsumerMetrics.HandlerRan(_tag, started, records);
        if (_messaging is { } messaging && ConsumerMetrics.MessagingEnabled)
        {
            ConsumerMetrics.Processed(messaging.Of(partitionOf(work), failure), started, records);
        }
    }

    /// <summary>A handler call failed and is retried after <paramref name="delay"/>.</summary>
    public void Retrying(Activity? activity, Exception failure, string where, int attempt, int maxAttempts, TimeSpan delay)
    {
        ConsumerMetrics.Retried(_tag);
        ConsumerTracing.Retrying(activity, failure, attempt, delay);
        ConsumerLog.HandlerRetrying(_logger, _consumer, where, attempt, maxAttempts, delay, failure);
    }

    /// <summary>The handler was cancelled by the host's shutdown timeout.</summary>
    public void Cancelled(Activity? activity, OperationCanceledException cancelled, string where)
    {
        ConsumerTracing.Failed(activity, cancelled);
        ConsumerLog.HandlerCancelled(_logger, _consumer, where);
    }

    /// <summary>The handler failed for good (its conclusion says what follows).</summary>
    public static void FailedForGood(Activity? activity, Exception failure) => ConsumerTracing.Failed(activity, failure);

    /// <summary>A batch of <paramref name="count"/> records starts its handler.</summary>
    public void BatchStarting(int count) => ConsumerMetrics.BatchStarting(_tag, count);

    /// <summary>A batch's handler completed.</summary>
    public void BatchHandled() => ConsumerMetrics.BatchHandled(_tag);

    /// <summary>A batch failed for good and is run again one record at a time.</summary>
    public void BatchSplit(Activity? activity, string where, int count, Exception failure)
    {
        ConsumerLog.BatchSplit(_logger, _consumer, where, count, failure);
        ConsumerTracing.Split(activity, count);
    }
}
