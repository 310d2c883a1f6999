using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.Diagnostics;

namespace KafkaProtobuf.Hosting.Diagnostics;

/// <summary>
/// One consumer's <c>process</c> spans. Nothing is read or allocated unless a listener samples the source: the check
/// is one field read per record.
/// </summary>
internal sealed class ConsumerTracing(string consumer, string? group)
{
    internal static readonly ActivitySource Source = new(
        KafkaProtobufConsumerTracing.ActivitySourceName, typeof(ConsumerTracing).Assembly.GetName().Version?.ToString());

    /// <summary>Starts the span of a consumed record; see <see cref="Start(string, Partition, Offset, Headers?, object?)"/>.</summary>
    public Activity? Start<TKey, TValue>(ConsumeResult<TKey, TValue> record) =>
        Source.HasListeners() ? Start(record.Topic, record.Partition, record.Offset, record.Message.Headers, record.Message.Value) : null;

    /// <summary>
    /// Starts the span of a batch (it becomes <see cref="Activity.Current"/>): a new trace, linked to the context each
    /// record carries in its headers (a batch has many parents); null without a listener.
    /// </summary>
    public Activity? StartBatch<TKey, TValue>(IReadOnlyList<ConsumeResult<TKey, TValue>> records)
    {
        if (!Source.HasListeners())
        {
            return null;
        }

        var links = new List<ActivityLink>(records.Count);
        string topic = records[0].Topic;
        Partition partition = records[0].Partition;
        bool onePartition = true;
        foreach (ConsumeResult<TKey, TValue> record in records)
        {
            if (KafkaTraceContext.TryExtract(record.Message.Headers, out ActivityContext context))
            {
                links.Add(new ActivityLink(context));
            }

            onePartition &= record.Partition == partition && string.Equals(record.Topic, topic, StringComparison.Ordinal);
        }

        Activity? activity = Source.StartActivity(
            onePartition ? "process " + topic : "process", ActivityKind.Consumer, default(ActivityContext), links: links);
        if (activity is { IsAllDataRequested: true })
        {
            SetProcessTags(activity, onePartition ? topic : null, partition);
            activity.SetTag("messaging.batch.message_count", records.Count);
        }

        return activity;
    }

    /// <summary>Starts the span of a record that could not be deserialized, already marked failed with the reason.</summary>
    public Activity? StartPoison(ConsumeException poison)
    {
        ConsumeResult<byte[], byte[]> record = poison.ConsumerRecord;
        Activity? activity = Start(record.Topic, record.Partition, record.Offset, record.Message?.Headers, null);
        Failed(activity, poison.InnerException ?? poison);
        return activity;
    }

    /// <summary>Starts the span of a record (it becomes <see cref="Activity.Current"/>); null without a listener.</summary>
    /// <remarks>The position comes in parts: a <c>ConsumeResult</c>'s <c>TopicPartitionOffset</c> is a new object each
    /// time it is read.</remarks>
    public Activity? Start(string topic, Partition partition, Offset offset, Headers? headers, object? value)
    {
        if (!Source.HasListeners())
        {
            return null;
        }

        KafkaTraceContext.TryExtract(headers, out ActivityContext parent); // none: a new trace
        Activity? activity = Source.StartActivity("process " + topic, ActivityKind.Consumer, parent);
        if (activity is { IsAllDataRequested: true })
        {
            SetProcessTags(activity, topic, partition);
            activity.SetTag("messaging.kafka.offset", offset.Value);
            if (value is IMessage message)
            {
                activity.SetTag("kafkaprotobuf.message.type", message.Descriptor.FullName);
            }
        }

        return activity;
    }

    /// <summary>
    /// What every <c>process</c> span says, a record's or a batch's: the messaging attributes, the partition's (when it
    /// is one topic's partition), the group and the consumer.
    /// </summary>
    private void SetProcessTags(Activity activity, string? topic, Partition partition)
    {
        activity.SetTag("messaging.system", "kafka");
        activity.SetTag("messaging.operation.type", "process");
        activity.SetTag("messaging.operation.name", "process");
        if (topic is not null)
        {
            activity.SetTag("messaging.destination.name", topic);
            activity.SetTag("messaging.destination.partition.id", partition.Value.ToString(CultureInfo.InvariantCulture));
        }

        activity.SetTag("messaging.consumer.group.name", group);
        activity.SetTag("kafkaprotobuf.consumer", consumer);
    }

    /// <summary>
    /// The record failed: the span's status, <c>error.type</c> (the frame error code, or the exception's type) and an
    /// exception event.
    /// </summary>
    public static void Failed(Activity? activity, Exception exception)
    {
        if (activity is null)
        {
            return;
        }

        string type = exception is InvalidFrameException frame
            ? frame.ErrorCode.ToString()
            : exception.GetType().FullName ?? exception.GetType().Name;
        activity.SetStatus(ActivityStatusCode.Error, BoundedText.Cut(exception.Message));
        activity.SetTag("error.type", type);
        Exception(activity, exception);
    }

    /// <summary>The handler failed and is retried: an exception event and a retry event.</summary>
    public static void Retrying(Activity? activity, Exception exception, int attempt, TimeSpan backOff)
    {
        if (activity is null)
        {
            return;
        }

        Exception(activity, exception);
        activity.AddEvent(new ActivityEvent("kafkaprotobuf.retry", tags: new ActivityTagsCollection
        {
            { "kafkaprotobuf.attempt", attempt },
            { "kafkaprotobuf.back_off_ms", (long)backOff.TotalMilliseconds },
        }));
    }

    /// <summary>A batch failed for good and its records are handled one at a time.</summary>
    public static void Split(Activity? activity, int records) =>
        activity?.AddEvent(new ActivityEvent(
            "kafkaprotobuf.batch.split", tags: new ActivityTagsCollection { { "messaging.batch.message_count", records } }));

    /// <summary>The record was dead-lettered (the dead letter carries this span's context in its headers).</summary>
    public static void DeadLettered(Activity? activity, string topic, string reason) =>
        activity?.AddEvent(new ActivityEvent("kafkaprotobuf.dead_letter", tags: new ActivityTagsCollection
        {
            { "kafkaprotobuf.dead_letter.topic", topic },
            { "kafkaprotobuf.dead_letter.reason", reason },
        }));

    /// <summary>The record was sent to a retry topic.</summary>
    public static void SentToRetryTopic(Activity? activity, string topic, int tier) =>
        activity?.AddEvent(new ActivityEvent("kafkaprotobuf.retry_topic", tags: new ActivityTagsCollection
        {
            { "kafkaprotobuf.retry_topic.name", topic },
            { "kafkaprotobuf.retry_topic.tier", tier },
        }));

    /// <summary>The dead letter was not written: the record is read again (a new span).</summary>
    public static void DeadLetterFailed(Activity? activity, Exception exception)
    {
        if (activity is null)
        {
            return;
        }

        activity.SetStatus(ActivityStatusCode.Error, BoundedText.Cut(exception.Message));
        activity.SetTag("error.type", exception.GetType().FullName);
        Exception(activity, exception);
    }

    private static void Exception(Activity activity, Exception exception) =>
        activity.AddEvent(new ActivityEvent("exception", tags: new ActivityTagsCollection
        {
            { "exception.type", exception.GetType().FullName },
            { "exception.message", BoundedText.Cut(exception.Message) },
        }));
}
