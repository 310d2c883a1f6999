using System;
using System.Collections.Generic;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;

namespace KafkaProtobuf.Hosting.Retrying;

/// <summary>
/// Retry topics' rules: which topics this consumer's configuration makes its tiers, whether a record read from one is
/// due yet, where a record whose handler failed for good goes next (its next tier, or none: the dead-letter topic), the
/// copy it goes as, and the position its handler sees (the record as first read). What a copy's headers say is read by
/// the library's <see cref="ProvenanceCodec"/> (the same reading a dead letter of it gets, so the handler and a redrive
/// agree), and only for records of the tiers the configuration names (<c>{topic}.retry.{n}</c>, n up to the number of
/// tiers): on any other topic, retry and source headers play no part. Stateless but for the clock; safe on any thread.
/// </summary>
internal sealed class RetryTiers
{
    /// <summary>
    /// How far the clock of the consumer that wrote a retry copy may be ahead of this one's: a due time further off than
    /// the tier's delay plus this is not believed, and the record is due at once.
    /// </summary>
    internal static readonly TimeSpan AllowedClockSkew = TimeSpan.FromMinutes(1);

    private readonly TimeSpan[] _delays;
    // a retry topic → its tier
    private readonly Dictionary<string, RetryTier> _retryTopics = new(StringComparer.Ordinal);
    private readonly ProvenanceCodec _codec;
    private readonly Func<DateTimeOffset> _now;

    /// <param name="options">The tiers.</param>
    /// <param name="subscribedTopics">What the consumer reads: those named <c>{topic}.retry.{n}</c>, n a tier, are its
    /// retry topics.</param>
    /// <param name="codec">How copies are written and read back (the consumer's keys).</param>
    /// <param name="now">The clock.</param>
    public RetryTiers(
        RetryTopicOptions options, IEnumerable<string> subscribedTopics, ProvenanceCodec codec, Func<DateTimeOffset>? now = null)
    {
        _delays = [.. options.Delays];
        _codec = codec;
        _now = now ?? (() => DateTimeOffset.UtcNow);
        foreach (string topic in subscribedTopics)
        {
            if (RetryTopicName.Parse(topic, _delays.Length) is { } retry)
            {
                _retryTopics[topic] = new RetryTier(retry.Topic, retry.Tier);
            }
        }
    }

    /// <summary>The tier a topic is in this consumer's configuration, or null for any other topic.</summary>
    public RetryTier? TierOf(string topic) =>
        _retryTopics.Count > 0 && _retryTopics.TryGetValue(topic, out RetryTier? tier) ? tier : null;

    /// <summary>
    /// One reading of a record's hops: where it was first read and how long until it is due (at most its tier's delay
    /// and the allowed skew). A record of a topic that is no tier: nothing, after one look-up.
    /// </summary>
    /// <param name="record">The record as it was written: raw key, value and headers, topic, partition and offset.</param>
    public TierRecord Read(ConsumeResult<byte[], byte[]> record)
    {
        if (TierOf(record.Topic) is not { } tier
            || !_codec.TryReadRetryCopy(record, tier, out TopicPartitionOffset? origin, out DateTimeOffset? due))
        {
            return default; // not a believed copy: due at once, handled where it is
        }

        // A due time from another clock, or forged, is never waited for longer than the tier's delay and the skew.
        TimeSpan left = due is { } at ? at - _now() : TimeSpan.Zero;
        return new TierRecord(origin, left > TimeSpan.Zero && left <= _delays[tier.Tier - 1] + AllowedClockSkew ? left : TimeSpan.Zero);
    }

    /// <summary>
    /// The tier a record whose handler failed for good goes to next, read from <paramref name="readFrom"/> (null: a
    /// topic that is no tier, whose tier 1 is next), or null after the last tier (the dead-letter topic's turn).
    /// </summary>
    public RetryTier? NextTier(ConsumeResult<byte[], byte[]> record, RetryTier? readFrom)
    {
        RetryTier next = readFrom?.Next() ?? new RetryTier(record.Topic, 1);
        return next.Tier > _delays.Length ? null : next;
    }

    /// <summary>
    /// The copy for <paramref name="to"/>: the record as read (key, value, its headers with their history) and a hop's
    /// block for this failure: the tier, its due time and, on the first hop, the failure's time.
    /// </summary>
    public Message<byte[], byte[]> Copy(ConsumeResult<byte[], byte[]> record, Exception failure, RetryTier to, out DateTimeOffset due)
    {
        if (to.Tier < 1 || to.Tier > _delays.Length)
        {
            throw new ArgumentOutOfRangeException(nameof(to), to, "Not a tier of these retry topics.");
        }

        DateTimeOffset now = _now();
        due = now + _delays[to.Tier - 1];
        return _codec.ToRetryCopy(record, failure, TierOf(record.Topic), to, due, now);
    }

    /// <summary>
    /// The record as its handler sees it: a retry topic's record at the position it was first read from (a new result),
    /// as its believed hops say (<paramref name="read"/>); any other, itself.
    /// </summary>
    /// <param name="record">The record as read (deserialized).</param>
    /// <param name="read">What its hops say (<see cref="Read"/>).</param>
    public static ConsumeResult<TKey, TValue> AsOriginal<TKey, TValue>(ConsumeResult<TKey, TValue> record, TierRecord read) =>
        read.Origin is not { } origin
            ? record
            : new ConsumeResult<TKey, TValue>
            {
                TopicPartitionOffset = origin,
                Message = record.Message,
                IsPartitionEOF = record.IsPartitionEOF,
            };
}
