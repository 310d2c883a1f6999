using System;
using System.Collections.Generic;

namespace KafkaProtobuf.Hosting;

/// <summary>
/// Non-blocking retries: a record whose handler failed its in-place attempts (<see cref="HandlerFailureOptions.MaxAttempts"/>)
/// is copied, byte for byte, to the next retry topic with the time it is due, and its partition goes on; read from there
/// once due, it is handled again as its original; after the last tier it goes to the dead-letter topic. Off unless
/// <see cref="Delays"/> has a tier. Records that fail give up their key's order: use retry topics when a record's
/// failure must not hold back the records after it, and its handling does not depend on what came before it.
/// </summary>
/// <remarks>
/// A record's tier is its topic's: the consumer reads <c>kafkaprotobuf.retry.*</c> and <c>kafkaprotobuf.source.*</c>
/// headers only on the retry topics its configuration names (<c>{topic}.retry.{n}</c>, n up to the number of tiers),
/// and believes a due time no further off than the tier's delay plus a minute of clock skew. On any other topic those
/// headers play no part: anyone who writes to it can write them.
/// </remarks>
public sealed class RetryTopicOptions
{
    /// <summary>
    /// The tiers' delays, in order: tier 1 (<c>{topic}.retry.1</c>) is handled no sooner than <c>Delays[0]</c> after the
    /// failure, tier 2 <c>Delays[1]</c> after the record failed on tier 1, and so on. Empty (the default): no retry topics.
    /// </summary>
    public IList<TimeSpan> Delays { get; } = new List<TimeSpan>();

    /// <summary>
    /// Whether this consumer reads the retry topics of its topics too (the default). <see langword="false"/> when
    /// another registration reads them (its <c>Topics</c> the retry topics, with the same <see cref="Delays"/>).
    /// </summary>
    public bool ReadRetryTopics { get; set; } = true;

    /// <summary>The retry topic of a tier: <c>{topic}.retry.{tier}</c>, from 1.</summary>
    /// <param name="topic">The topic the record was first read from.</param>
    /// <param name="tier">The tier, from 1.</param>
    /// <returns>The topic's name.</returns>
    public static string TopicName(string topic, int tier) => RetryTopicName.Of(topic, tier);
}
