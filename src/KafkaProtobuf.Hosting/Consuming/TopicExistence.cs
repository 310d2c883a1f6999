using System;
using System.Collections.Generic;
using Confluent.Kafka;

namespace KafkaProtobuf.Hosting.Consuming;

/// <summary>
/// Whether a topic written to exists, asked of the brokers' metadata through the consumer's connection (which never
/// creates topics). Loop thread only; disposed before the consumer whose handle it uses.
/// </summary>
internal sealed class TopicExistence : IDisposable
{
    private readonly Handle _consumer;
    private IAdminClient? _metadata; // made at the first question: most consumers never ask one

    /// <param name="consumer">The consumer's handle.</param>
    public TopicExistence(Handle consumer) => _consumer = consumer;

    /// <summary>
    /// Whether a write failed because its topic does not exist: asked only when the error is one a missing topic gives
    /// (the producer times out waiting for it, or is told it is unknown). Waits up to <paramref name="timeout"/> for the
    /// answer.
    /// </summary>
    public bool IsMissing(string topic, ErrorCode error, TimeSpan timeout)
    {
        if (error is not (ErrorCode.Local_TimedOut or ErrorCode.Local_MsgTimedOut
            or ErrorCode.Local_UnknownTopic or ErrorCode.UnknownTopicOrPart or ErrorCode.Local_UnknownPartition))
        {
            return false;
        }

        try
        {
            _metadata ??= new DependentAdminClientBuilder(_consumer).Build();
            List<TopicMetadata> topics = _metadata.GetMetadata(topic, timeout).Topics;
            return topics.Count == 1 && topics[0].Error.Code is ErrorCode.UnknownTopicOrPart or ErrorCode.Local_UnknownTopic;
        }
        catch (KafkaException)
        {
            return false; // the brokers did not answer: nothing is known of the topic
        }
    }

    public void Dispose() => _metadata?.Dispose();
}
