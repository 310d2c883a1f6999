using System;
using System.Globalization;
using System.Text;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;

namespace KafkaProtobuf.Hosting;

/// <summary>
/// Retry topics' rules, from their headers: whether a record read is due yet, where a record whose handler failed for
/// good goes next (its next tier, or none: the dead-letter topic), the copy it goes as, and the position its handler
/// sees (the record as first read). Stateless but for the clock; safe on any thread.
/// </summary>
internal sealed class RetryTiers
{
    private readonly TimeSpan[] _delays;
    private readonly Func<DateTimeOffset> _now;

    public RetryTiers(RetryTopicOptions options, Func<DateTimeOffset>? now = null)
    {
        _delays = [.. options.Delays];
        _now = now ?? (() => DateTimeOffset.UtcNow);
    }

    /// <summary>A record read from a retry topic whose due time has not come: how long until it does.</summary>
    public bool NotYetDue(Headers? headers, out TimeSpan wait)
    {
        wait = TimeSpan.Zero;
        if (headers is null || headers.Count == 0 || !TryLastNumber(headers, RetryHeaderNames.Due, out long due))
        {
            return false; // the common case, a record that never failed: one look at an empty header list
        }

        wait = DateTimeOffset.FromUnixTimeMilliseconds(due) - _now();
        return wait > TimeSpan.Zero;
    }

    /// <summary>The retry topic a record whose handler failed for good goes to next, or null after the last tier (the dead-letter topic's turn).</summary>
    public string? NextTopic(ConsumeResult<byte[], byte[]> record, out int tier)
    {
        tier = (TryLastNumber(record.Message.Headers, RetryHeaderNames.Attempt, out long attempt) ? (int)attempt : 0) + 1;
        return tier > _delays.Length ? null : RetryTopicOptions.TopicName(OriginalOf(record).Topic, tier);
    }

    /// <summary>
    /// The copy for the retry topic of <paramref name="tier"/>: the record as read (key, value, its headers with their
    /// history) with a dead letter's headers for this failure, then the tier, its due time and, on the first hop, the failure's time.
    /// </summary>
    public Message<byte[], byte[]> Copy(ConsumeResult<byte[], byte[]> record, Exception failure, int tier, out DateTimeOffset due)
    {
        Message<byte[], byte[]> copy = record.ToDeadLetterMessage(failure);
        DateTimeOffset now = _now();
        due = now + _delays[tier - 1];
        Add(copy.Headers, RetryHeaderNames.Attempt, tier);
        Add(copy.Headers, RetryHeaderNames.Due, due.ToUnixTimeMilliseconds());
        if (tier == 1)
        {
            Add(copy.Headers, RetryHeaderNames.FirstFailure, now.ToUnixTimeMilliseconds());
        }

        return copy;
    }

    /// <summary>The record as its handler sees it: a retry topic's record at the position it was first read from (a new result); any other, itself.</summary>
    public static ConsumeResult<TKey, TValue> AsOriginal<TKey, TValue>(ConsumeResult<TKey, TValue> record)
    {
        Headers? headers = record.Message.Headers;
        if (headers is null || headers.Count == 0 || !headers.TryGetLastBytes(RetryHeaderNames.Attempt, out _))
        {
            return record;
        }

        return new ConsumeResult<TKey, TValue>
        {
            TopicPartitionOffset = OriginalOf(headers, record.TopicPartitionOffset),
            Message = record.Message,
            IsPartitionEOF = record.IsPartitionEOF,
        };
    }

    private static TopicPartitionOffset OriginalOf(ConsumeResult<byte[], byte[]> record) => OriginalOf(record.Message.Headers, record.TopicPartitionOffset);

    /// <summary>The first <c>kafkaprotobuf.source.*</c> headers: where the record was first read; <paramref name="fallback"/> without them.</summary>
    private static TopicPartitionOffset OriginalOf(Headers? headers, TopicPartitionOffset fallback)
    {
        string? topic = null;
        int? partition = null;
        long? offset = null;
        foreach (IHeader header in headers ?? [])
        {
            switch (header.Key)
            {
                case DeadLetterHeaderNames.SourceTopic when topic is null:
                    topic = Encoding.UTF8.GetString(header.GetValueBytes());
                    break;
                case DeadLetterHeaderNames.SourcePartition when partition is null:
                    partition = int.TryParse(Encoding.UTF8.GetString(header.GetValueBytes()), NumberStyles.Integer, CultureInfo.InvariantCulture, out int p) ? p : null;
                    break;
                case DeadLetterHeaderNames.SourceOffset when offset is null:
                    offset = long.TryParse(Encoding.UTF8.GetString(header.GetValueBytes()), NumberStyles.Integer, CultureInfo.InvariantCulture, out long o) ? o : null;
                    break;
            }
        }

        return topic is not null && partition is { } part && offset is { } off ? new TopicPartitionOffset(topic, part, off) : fallback;
    }

    private static bool TryLastNumber(Headers? headers, string name, out long value)
    {
        value = 0;
        return headers is not null && headers.TryGetLastBytes(name, out byte[] bytes)
            && long.TryParse(Encoding.UTF8.GetString(bytes), NumberStyles.Integer, CultureInfo.InvariantCulture, out value);
    }

    private static void Add(Headers headers, string name, long value) => headers.Add(name, Encoding.UTF8.GetBytes(value.ToString(CultureInfo.InvariantCulture)));
}
