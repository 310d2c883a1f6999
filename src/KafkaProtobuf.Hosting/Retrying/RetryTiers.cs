using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;

namespace KafkaProtobuf.Hosting.Retrying;

/// <summary>
/// Retry topics' rules: whether a record read is due yet, where a record whose handler failed for good goes next (its
/// next tier, or none: the dead-letter topic), the copy it goes as, and the position its handler sees (the record as
/// first read). A record's tier is its topic's: only records of the retry topics this consumer's configuration names
/// (<c>{topic}.retry.{n}</c>, n up to the number of tiers) are read as retries, and their headers are checked against
/// it. On any other topic, retry and source headers play no part: anyone can write them there, and a dead letter
/// written back to its topic carries them too. Stateless but for the clock; safe on any thread.
/// </summary>
internal sealed class RetryTiers
{
    /// <summary>
    /// How far the clock of the consumer that wrote a retry copy may be ahead of this one's: a due time further off than
    /// the tier's delay plus this is not believed, and the record is due at once.
    /// </summary>
    internal static readonly TimeSpan AllowedClockSkew = TimeSpan.FromMinutes(1);

    private readonly TimeSpan[] _delays;
    // a retry topic → its first topic and tier
    private readonly Dictionary<string, (string Topic, int Tier)> _retryTopics = new(StringComparer.Ordinal);
    private readonly Func<DateTimeOffset> _now;

    /// <param name="options">The tiers.</param>
    /// <param name="subscribedTopics">What the consumer reads: those named <c>{topic}.retry.{n}</c>, n a tier, are its
    /// retry topics.</param>
    /// <param name="now">The clock.</param>
    public RetryTiers(RetryTopicOptions options, IEnumerable<string> subscribedTopics, Func<DateTimeOffset>? now = null)
    {
        _delays = [.. options.Delays];
        _now = now ?? (() => DateTimeOffset.UtcNow);
        foreach (string topic in subscribedTopics)
        {
            if (TierOfName(topic, _delays.Length) is { } retry)
            {
                _retryTopics[topic] = retry;
            }
        }
    }

    /// <summary>
    /// A record read from a retry topic whose due time has not come: how long until it does (at most its tier's delay
    /// and the allowed skew).
    /// </summary>
    public bool NotYetDue<TKey, TValue>(ConsumeResult<TKey, TValue> record, out TimeSpan wait)
    {
        wait = TimeSpan.Zero;
        if (_retryTopics.Count == 0 || !_retryTopics.TryGetValue(record.Topic, out (string Topic, int Tier) retry)
            || record.Message?.Headers is not { } headers || !TryLastNumber(headers, RetryHeaderNames.Due, out long due) || due < 0)
        {
            return false; // the common case, a record of a topic that is no retry topic: one dictionary look-up
        }

        // Milliseconds, range-checked: a due time from another clock, or forged, is never waited for longer than the tier's delay.
        long left = due - _now().ToUnixTimeMilliseconds();
        if (left <= 0 || left > (long)(_delays[retry.Tier - 1] + AllowedClockSkew).TotalMilliseconds)
        {
            return false;
        }

        wait = TimeSpan.FromMilliseconds(left);
        return true;
    }

    /// <summary>
    /// The retry topic a record whose handler failed for good goes to next, or null after the last tier (the
    /// dead-letter topic's turn).
    /// </summary>
    public string? NextTopic(ConsumeResult<byte[], byte[]> record, out int tier)
    {
        (string first, int read) = _retryTopics.TryGetValue(record.Topic, out var retry) ? retry : (record.Topic, 0);
        tier = read + 1;
        return tier > _delays.Length ? null : RetryTopicOptions.TopicName(first, tier);
    }

    /// <summary>
    /// The copy for the retry topic of <paramref name="tier"/>: the record as read (key, value, its headers with their
    /// history) with a dead letter's headers for this failure, then the tier, its due time and, on the first hop, the failure's time.
    /// </summary>
    public Message<byte[], byte[]> Copy(ConsumeResult<byte[], byte[]> record, Exception failure, int tier, out DateTimeOffset due)
    {
        if (tier < 1 || tier > _delays.Length)
        {
            throw new ArgumentOutOfRangeException(nameof(tier), tier, "Not a tier of these retry topics.");
        }

        Message<byte[], byte[]> copy = record.ToDeadLetterMessage(failure);
        DateTimeOffset now = _now();
        due = now + _delays[tier - 1];
        Add(copy.Headers, RetryHeaderNames.Tier, tier);
        Add(copy.Headers, RetryHeaderNames.Due, due.ToUnixTimeMilliseconds());
        if (tier == 1)
        {
            Add(copy.Headers, RetryHeaderNames.FirstFailure, now.ToUnixTimeMilliseconds());
        }

        return copy;
    }

    /// <summary>
    /// The record as its handler sees it: a retry topic's record at the position it was first read from (a new result),
    /// as the source headers its first hop wrote say when they name that retry topic's first topic; any other, itself.
    /// </summary>
    public ConsumeResult<TKey, TValue> AsOriginal<TKey, TValue>(ConsumeResult<TKey, TValue> record)
    {
        if (_retryTopics.Count == 0 || !_retryTopics.TryGetValue(record.Topic, out (string Topic, int Tier) retry)
            || OriginalOf(record.Message?.Headers, retry) is not { } original)
        {
            return record;
        }

        return new ConsumeResult<TKey, TValue>
        {
            TopicPartitionOffset = original,
            Message = record.Message,
            IsPartitionEOF = record.IsPartitionEOF,
        };
    }

    /// <summary>
    /// The first topic and tier of a topic named <c>{topic}.retry.{n}</c> with n from 1 to <paramref name="tiers"/>;
    /// null for any other name.
    /// </summary>
    internal static (string Topic, int Tier)? TierOfName(string topic, int tiers) => RetryTopicName.Parse(topic, tiers);

    /// <summary>
    /// Where a record of <paramref name="retry"/>'s tier was first read: the source headers of its first hop, the
    /// <c>tier</c>-th set from the end (each hop appends one after the record's own, which anyone may have written), when
    /// they name the first topic and a position; null otherwise.
    /// </summary>
    private static TopicPartitionOffset? OriginalOf(Headers? headers, (string Topic, int Tier) retry)
    {
        if (headers is null)
        {
            return null;
        }

        string? topic = NthFromLast(headers, DeadLetterHeaderNames.SourceTopic, retry.Tier);
        return topic == retry.Topic
            && int.TryParse(
                NthFromLast(headers, DeadLetterHeaderNames.SourcePartition, retry.Tier),
                NumberStyles.None,
                CultureInfo.InvariantCulture,
                out int partition)
            && long.TryParse(
                NthFromLast(headers, DeadLetterHeaderNames.SourceOffset, retry.Tier),
                NumberStyles.None,
                CultureInfo.InvariantCulture,
                out long offset)
            ? new TopicPartitionOffset(topic, partition, offset)
            : null;
    }

    /// <summary>
    /// The value of the <paramref name="n"/>-th header named <paramref name="name"/>, counted from the last (1); null
    /// when there are fewer.
    /// </summary>
    private static string? NthFromLast(Headers headers, string name, int n)
    {
        for (int i = headers.Count - 1; i >= 0; i--)
        {
            if (headers[i].Key == name && --n == 0)
            {
                byte[] value = headers[i].GetValueBytes();
                return value is null || value.Length > 256 ? null : Encoding.UTF8.GetString(value);
            }
        }

        return null;
    }

    private static bool TryLastNumber(Headers headers, string name, out long value)
    {
        value = 0;
        return headers.TryGetLastBytes(name, out byte[] bytes) && bytes is { Length: > 0 and <= 20 }
            && long.TryParse(Encoding.UTF8.GetString(bytes), NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out value);
    }

    private static void Add(Headers headers, string name, long value) => headers.Add(
        name, Encoding.UTF8.GetBytes(value.ToString(CultureInfo.InvariantCulture)));
}
