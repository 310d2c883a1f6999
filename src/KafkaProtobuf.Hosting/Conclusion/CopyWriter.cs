using System;
using System.Diagnostics;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Hosting.Consuming;
using KafkaProtobuf.Hosting.Diagnostics;
using KafkaProtobuf.Hosting.Health;
using KafkaProtobuf.Hosting.Scheduling;

namespace KafkaProtobuf.Hosting.Conclusion;

/// <summary>
/// Writes a record elsewhere for its conclusion (its dead letter, a retry topic's copy) and says what follows: done, read
/// again (a write the broker did not take; the topic named when it does not exist), or the consumer stops. Loop thread only.
/// </summary>
/// <typeparam name="TKey">The key type.</typeparam>
/// <typeparam name="TValue">The value type.</typeparam>
internal sealed class CopyWriter<TKey, TValue>
{
    private readonly ConsumerClient<TKey, TValue> _client;
    private readonly TimeSpan _topicCheckTimeout;
    private readonly TimeSpan _readAgainDelay;
    private readonly ConsumerStatus _status;
    private readonly ConclusionEvents _events;
    private readonly RefusedTopics _refused = new();

    /// <param name="client">The Kafka client: it seeks, and tells whether a topic exists.</param>
    /// <param name="topicCheckTimeout">How long a write that failed waits for the brokers to say whether its topic exists.</param>
    /// <param name="readAgainDelay">How long before a record whose write failed is read again (for the log).</param>
    /// <param name="status">The consumer's health.</param>
    /// <param name="events">Where what happened is reported.</param>
    public CopyWriter(
        ConsumerClient<TKey, TValue> client,
        TimeSpan topicCheckTimeout,
        TimeSpan readAgainDelay,
        ConsumerStatus status,
        ConclusionEvents events)
    {
        _client = client;
        _topicCheckTimeout = topicCheckTimeout;
        _readAgainDelay = readAgainDelay;
        _status = status;
        _events = events;
    }

    /// <summary>
    /// Writes a record elsewhere (a dead letter, a retry topic's copy) and stores its offset once the broker has it. A
    /// retriable failure: the consumer was moved back to the record, which is read again after a delay; any other stops.
    /// A topic that refused a write is not written to again before the next poll (<see cref="RefusedTopics"/>): the
    /// records bound for it meanwhile are read again without a wait.
    /// A record written whose offset could not be stored (its partition is no longer this consumer's) is not done here:
    /// its new owner reads it again.
    /// </summary>
    public AfterConclusion Write(
        ConsumeResult<byte[], byte[]> record, Func<CopyResult> send, string topic, Activity? activity, Action<CopyResult> written)
    {
        if (_refused.RefusedDuring(topic, _client.Polls, out string refusedWhy, out DeadLetterException? refusal))
        {
            // The topic refused a write since the last poll: another wait now would add up across partitions.
            ReadAgain(record.TopicPartitionOffset);

            // This record's own exception for its span, the refusal it follows as the inner one.
            var notTried = new DeadLetterException(refusal!.Error, record.TopicPartitionOffset, topic, refusal);
            return WaitsToBeWritten(record, topic, refusedWhy, notTried, activity);
        }

        try
        {
            CopyResult result = send();
            written(result);
            if (result.Offset != OffsetOutcome.NotStored)
            {
                _status.RecordDone(record.Topic, record.Partition);
            }

            return AfterConclusion.Continue;
        }
        catch (DeadLetterException d) when (d.IsRetriable)
        {
            // The write moved the consumer back to the record: after the delay, Consume delivers it again.
            string missing = ": the topic '" + topic + "' does not exist; create it (or let the broker create topics)";
            string why = d.Error.Code + (_client.Topics.IsMissing(topic, d.Error.Code, _topicCheckTimeout) ? missing : string.Empty);
            _refused.Refused(topic, _client.Polls, why, d);
            return WaitsToBeWritten(record, topic, why, d, activity);
        }
        catch (DeadLetterException d)
        {
            return AfterConclusion.Fail(
                PositionText.Of(record.TopicPartitionOffset) + " cannot be written to '" + topic + "' (" + d.Error.Code + ": "
                    + BoundedText.Cut(d.Error.Reason)
                    + "; not retriable): nothing was stored past the record, which is read again when the consumer restarts",
                d);
        }
    }

    /// <summary>The record is read again to be written: logged, traced, and its partition's health says what it waits for.</summary>
    private AfterConclusion WaitsToBeWritten(
        ConsumeResult<byte[], byte[]> record, string topic, string why, DeadLetterException failure, Activity? activity)
    {
        _events.WriteRetrying(activity, record.TopicPartitionOffset, topic, why, _readAgainDelay, failure);
        _status.Waits(record.TopicPartition, "write to '" + topic + "'", why);
        return AfterConclusion.ReadAgain;
    }

    /// <summary>Moves the consumer back to the record, as a write that failed does: the next poll delivers it again.</summary>
    private void ReadAgain(TopicPartitionOffset record)
    {
        try
        {
            _client.Seek(record);
        }
        catch (KafkaException)
        {
            // The partition is no longer assigned: its new owner starts from the committed offset, before the record.
        }
    }
}
