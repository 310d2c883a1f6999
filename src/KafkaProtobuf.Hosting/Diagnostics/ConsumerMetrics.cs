using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics;
using System.Diagnostics.Metrics;

namespace KafkaProtobuf.Hosting.Diagnostics;

/// <summary>
/// The hosted consumers' instruments (named in <see cref="KafkaProtobufConsumerMetrics"/>), each recording tagged with
/// the consumer's name.
/// </summary>
internal static class ConsumerMetrics
{
    private static readonly Meter Meter = new(
        KafkaProtobuf.Diagnostics.KafkaProtobufMetrics.MeterName, typeof(ConsumerMetrics).Assembly.GetName().Version?.ToString());
    private static readonly Counter<long> Handled = Meter.CreateCounter<long>(
        KafkaProtobufConsumerMetrics.RecordsHandled, "{record}", "Records whose handler completed.");
    private static readonly Histogram<double> Duration = Meter.CreateHistogram<double>(
        KafkaProtobufConsumerMetrics.HandlerDuration, "s", "How long each handler run took.");
    private static readonly Counter<long> Retries = Meter.CreateCounter<long>(
        KafkaProtobufConsumerMetrics.HandlerRetries, "{retry}", "Handler runs that failed and were retried.");
    private static readonly Counter<long> DeadLettered = Meter.CreateCounter<long>(
        KafkaProtobufConsumerMetrics.RecordsDeadLettered, "{record}", "Records written to the dead-letter topic.");
    private static readonly Histogram<int> Sizes = Meter.CreateHistogram<int>(
        KafkaProtobufConsumerMetrics.BatchSize, "{record}", "How many records each batch handed to a batch handler held.");
    private static readonly Counter<long> RetryTopicRecords = Meter.CreateCounter<long>(
        KafkaProtobufConsumerMetrics.RecordsSentToRetryTopic, "{record}", "Records sent to a retry topic.");
    private static readonly Counter<long> Batches = Meter.CreateCounter<long>(
        KafkaProtobufConsumerMetrics.BatchesHandled, "{batch}", "Batches whose handler completed.");
    private static readonly Histogram<double> ProcessDuration = Meter.CreateHistogram<double>(
        MessagingAttributes.ProcessDuration, "s", "Duration of processing operation.");
    private static readonly Counter<long> ConsumedMessages = Meter.CreateCounter<long>(
        MessagingAttributes.ConsumedMessages, "{message}", "Number of messages that were delivered to the application.");
    private static readonly ConcurrentDictionary<ConsumerLag, byte> Observed = new();
    private static readonly ObservableGauge<long> LagGauge = Meter.CreateObservableGauge(
        KafkaProtobufConsumerMetrics.Lag, ObserveLag, "{record}", "Records of each assigned partition not yet handled.");

    /// <summary>Reports this consumer's lag from now on (a consumer's lag lives as long as its application).</summary>
    internal static void Observe(ConsumerLag lag) => Observed.TryAdd(lag, 0);

    private static IEnumerable<Measurement<long>> ObserveLag()
    {
        foreach (ConsumerLag consumer in Observed.Keys)
        {
            foreach (PartitionLag partition in consumer.Latest)
            {
                yield return new Measurement<long>(
                    partition.Records,
                    new KeyValuePair<string, object?>(KafkaProtobufConsumerMetrics.ConsumerTag, consumer.Consumer),
                    new KeyValuePair<string, object?>(KafkaProtobufConsumerMetrics.TopicTag, partition.Topic),
                    new KeyValuePair<string, object?>(KafkaProtobufConsumerMetrics.PartitionTag, partition.Partition));
            }
        }
    }

    /// <summary>
    /// When a handler run starts, for <see cref="HandlerRan"/>; 0 while nothing listens to the duration histogram: on a
    /// VM a clock read costs tens of nanoseconds, and two a record were a third of what the hosted loop cost over the
    /// hand-written one.
    /// </summary>
    internal static long HandlerStarting() => Duration.Enabled || ProcessDuration.Enabled ? Stopwatch.GetTimestamp() : 0;

    /// <summary>Whether anyone listens to the OpenTelemetry messaging instruments (nothing is tagged otherwise).</summary>
    internal static bool MessagingEnabled => ProcessDuration.Enabled || ConsumedMessages.Enabled;

    /// <summary>
    /// OpenTelemetry's messaging metrics for a handler run: its duration (when timed), the records it was given (when
    /// handled).
    /// </summary>
    internal static void Processed(in TagList attributes, long started, int handled)
    {
        if (started != 0)
        {
            ProcessDuration.Record((Stopwatch.GetTimestamp() - started) / (double)Stopwatch.Frequency, in attributes);
        }

        if (handled != 0)
        {
            ConsumedMessages.Add(handled, in attributes);
        }
    }

    /// <summary>
    /// A handler run ended, having handled <paramref name="handled"/> records (0 when it failed); its duration is
    /// recorded if it was timed (<paramref name="started"/> not 0).
    /// </summary>
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
        DeadLettered.Add(
            1,
            consumer,
            new KeyValuePair<string, object?>(KafkaProtobufConsumerMetrics.ReasonTag, handlerFailure ? "handler" : "deserialization"));

    internal static void BatchStarting(KeyValuePair<string, object?> consumer, int records) => Sizes.Record(records, consumer);

    internal static void BatchHandled(KeyValuePair<string, object?> consumer) => Batches.Add(1, consumer);

    internal static void SentToRetryTopic(KeyValuePair<string, object?> consumer, int tier) =>
        RetryTopicRecords.Add(1, consumer, new KeyValuePair<string, object?>(KafkaProtobufConsumerMetrics.TierTag, tier));
}
