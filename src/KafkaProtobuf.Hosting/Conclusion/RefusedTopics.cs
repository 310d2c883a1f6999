using System.Collections.Generic;
using KafkaProtobuf.DeadLetters;

namespace KafkaProtobuf.Hosting.Conclusion;

/// <summary>
/// Topics that refused a write (a dead letter, a retry copy) since the consumer last polled. A write waits up to the
/// copy timeout, on the loop thread; in the scheduled modes one poll cycle can conclude the work of many partitions, and
/// writing each of their copies to a topic that has just refused one would keep the loop from polling for that long
/// times the number of partitions: past max.poll.interval.ms, and librdkafka takes the member out of its group. So a
/// refused topic is not tried again before the next poll; the records bound for it meanwhile are read again as the one
/// that failed is. Loop thread only.
/// </summary>
internal sealed class RefusedTopics
{
    private readonly Dictionary<string, Refusal> _refused = [];

    /// <summary>The topic refused a write during poll cycle <paramref name="poll"/>.</summary>
    public void Refused(string topic, long poll, string why, DeadLetterException failure) =>
        _refused[topic] = new Refusal(poll, why, failure);

    /// <summary>Whether the topic refused a write during poll cycle <paramref name="poll"/>, and why.</summary>
    public bool RefusedDuring(string topic, long poll, out string why, out DeadLetterException? failure)
    {
        if (_refused.Count > 0 && _refused.TryGetValue(topic, out Refusal refusal) && refusal.Poll == poll)
        {
            (why, failure) = (refusal.Why, refusal.Failure);
            return true;
        }

        (why, failure) = (string.Empty, null);
        return false;
    }

    private readonly struct Refusal(long poll, string why, DeadLetterException failure)
    {
        public long Poll { get; } = poll;

        public string Why { get; } = why;

        public DeadLetterException Failure { get; } = failure;
    }
}
