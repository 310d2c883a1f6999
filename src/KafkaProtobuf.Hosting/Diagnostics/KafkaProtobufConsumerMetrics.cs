using System.Collections.Generic;
using System.Diagnostics;
using System.Diagnostics.Metrics;

namespace KafkaProtobuf.Hosting;

/// <summary>
/// The hosted consumers' instruments, on the package's meter (<c>KafkaProtobuf</c>, the deserializers' meter), each tagged
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

    /// <summary>The tag saying which retry topic's tier a record was sent to.</summary>
    public const string TierTag = "tier";

    /// <summary>The tag saying why a record was dead-lettered.</summary>
    public const string ReasonTag = "reason";

    private static readonly Meter Meter = new(KafkaProtobuf.Diagnostics.KafkaProtobufMetrics.MeterName, typeof(KafkaProtobufConsumerMetrics).Assembly.GetName().Version?.ToString());
    private static readonly Counter<long> Handled = Meter.CreateCounter<long>(RecordsHandled, "{record}", "Records whose handler completed.");
    private static readonly Histogram<double> Duration = Meter.CreateHistogram<double>(HandlerDuration, "s", "How long each handler run took.");
    private static readonly Counter<long> Retries = Meter.CreateCounter<long>(HandlerRetries, "{retry}", "Handler runs that failed and were retried.");
    private static readonly Counter<long> DeadLettered = Meter.CreateCounter<long>(RecordsDeadLettered, "{record}", "Records written to the dead-letter topic.");
    private static readonly Histogram<int> Sizes = Meter.CreateHistogram<int>(BatchSize, "{record}", "How many records each batch handed to a batch handler held.");
    private static readonly Counter<long> RetryTopicRecords = Meter.CreateCounter<long>(RecordsSentToRetryTopic, "{record}", "Records sent to a retry topic.");
    private static readonly Counter<long> Batches = Meter.CreateCounter<long>(BatchesHandled, "{batch}", "Batches whose handler completed.");

    /// <summary>
    /// When a handler run starts, for <see cref="HandlerRan"/>; 0 while nothing listens to the duration histogram: on a
    /// VM a clock read costs tens of nanoseconds, and two a record were a third of what the hosted loop cost over the
    /// hand-written one.
    /// </summary>
    internal static long HandlerStarting() => Duration.Enabled ? Stopwatch.GetTimestamp() : 0;

    /// <summary>A handler run ended, having handled <paramref name="handled"/> records (0 when it failed); its duration is recorded if it was timed (<paramref name="started"/> not 0).</summary>
    internal static void HandlerRan(KeyValuePair<string, object?> consumer, long started, int handled)
    {
        if (started != 0)
        {
            Duration.Record((Stopwatch.GetTimestamp() - started) / (double)Stopwatch.Frequency, consumer);
        }

        if (handled != 0)
        {
            Handled.Add(handled, consumer);
        }
    }

    internal static void Retried(KeyValuePair<string, object?> consumer) => Retries.Add(1, consumer);

    internal static void DeadLetter(KeyValuePair<string, object?> consumer, bool handlerFailure) =>
        DeadLettered.Add(1, consumer, new KeyValuePair<string, object?>(ReasonTag, handlerFailure ? "handler" : "deserialization"));

    internal static void BatchStarting(KeyValuePair<string, object?> consumer, int records) => Sizes.Record(records, consumer);

    internal static void BatchHandled(KeyValuePair<string, object?> consumer) => Batches.Add(1, consumer);

    internal static void SentToRetryTopic(KeyValuePair<string, object?> consumer, int tier) =>
        RetryTopicRecords.Add(1, consumer, new KeyValuePair<string, object?>(TierTag, tier));
}
