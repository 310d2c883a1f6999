using System;
using System.Collections.Generic;
using System.Linq;
using Confluent.Kafka;

namespace KafkaProtobuf.Hosting;

/// <summary>
/// What a consumer's options make of the Kafka clients' settings: the topics it subscribes to, its consumer's and its
/// copy producer's configuration.
/// </summary>
internal static class ConsumerClientSettings
{
    /// <summary>
    /// What the consumer subscribes to: <see cref="KafkaProtobufConsumerOptions.Topics"/>, and their retry topics when
    /// it reads them.
    /// </summary>
    internal static List<string> SubscribedTopics(this KafkaProtobufConsumerOptions options)
    {
        var topics = new List<string>(options.Topics);
        if (options.RetryTopics.ReadRetryTopics)
        {
            foreach (string topic in options.Topics)
            {
                for (int tier = 1; tier <= options.RetryTopics.Delays.Count; tier++)
                {
                    topics.Add(RetryTopicOptions.TopicName(topic, tier));
                }
            }
        }

        return topics;
    }

    /// <summary>The consumer's configuration with the offset rule applied.</summary>
    internal static ConsumerConfig ConsumerConfigForLoop(this KafkaProtobufConsumerOptions options)
    {
        var config = new ConsumerConfig(options.Consumer.ToDictionary(setting => setting.Key, setting => setting.Value))
        {
            EnableAutoOffsetStore = false,
            EnableAutoCommit = true,
        };
        return config;
    }

    /// <summary>The consumer's <c>max.poll.interval.ms</c>, librdkafka's default (300 s) when not set.</summary>
    internal static TimeSpan MaxPollInterval(this KafkaProtobufConsumerOptions options) =>
        TimeSpan.FromMilliseconds(options.Consumer.MaxPollIntervalMs ?? 300_000);

    /// <summary>
    /// How long the loop waits for a record's copy to be acknowledged: <see cref="KafkaProtobufConsumerOptions.CopyTimeout"/>,
    /// but at most half the consumer's <c>max.poll.interval.ms</c>. The loop does not poll while it waits, and librdkafka
    /// takes a member that has not polled for that long out of its group: a copy not acknowledged by then is tried again
    /// after the read-again delay, as any copy not written, and the member stays in its group.
    /// </summary>
    internal static TimeSpan EffectiveCopyTimeout(this KafkaProtobufConsumerOptions options) =>
        options.AtMostPollIntervalShare(options.CopyTimeout, 2);

    /// <summary>
    /// How long a write that failed waits for the brokers to say whether its topic exists: 5 s, but at most a quarter of
    /// the consumer's <c>max.poll.interval.ms</c>, so that a copy's wait and this one together stay well within it.
    /// </summary>
    internal static TimeSpan TopicCheckTimeout(this KafkaProtobufConsumerOptions options) =>
        options.AtMostPollIntervalShare(TimeSpan.FromSeconds(5), 4);

    /// <summary><paramref name="wait"/>, but at most the share 1/<paramref name="divisor"/> of <c>max.poll.interval.ms</c>.</summary>
    private static TimeSpan AtMostPollIntervalShare(this KafkaProtobufConsumerOptions options, TimeSpan wait, int divisor)
    {
        TimeSpan share = TimeSpan.FromTicks(options.MaxPollInterval().Ticks / divisor);
        return wait < share ? wait : share;
    }

    /// <summary>
    /// The dead-letter producer's configuration: the defaults derived from the consumer's, with
    /// <see cref="KafkaProtobufConsumerOptions.CopyProducer"/> laid over them.
    /// </summary>
    internal static ProducerConfig CopyProducerConfig(this KafkaProtobufConsumerOptions options)
    {
        int copyTimeoutMs = (int)Math.Ceiling(options.EffectiveCopyTimeout().TotalMilliseconds);
        var config = new ProducerConfig
        {
            Acks = Acks.All,
            EnableIdempotence = true,
            MessageTimeoutMs = copyTimeoutMs,

            // A dead letter is its record plus at most DeadLetterMessages.MaxAddedBytes a copy: librdkafka's own limit
            // (1,000,000) would refuse one whose record was near it, so the producer takes any, and the topic's decides.
            MessageMaxBytes = KafkaProtobufConsumerOptions.DeadLetterMessageMaxBytes,
        };
        foreach (KeyValuePair<string, string> setting in options.Consumer)
        {
            // The connection and security settings; consumer-only ones would make librdkafka warn.
            if (setting.Key is "bootstrap.servers" or "client.id" || setting.Key.StartsWith("security.", StringComparison.Ordinal)
                || setting.Key.StartsWith("sasl.", StringComparison.Ordinal) || setting.Key.StartsWith("ssl.", StringComparison.Ordinal))
            {
                config.Set(setting.Key, setting.Value);
            }
        }

        foreach (KeyValuePair<string, string> setting in options.CopyProducer ?? Enumerable.Empty<KeyValuePair<string, string>>())
        {
            config.Set(setting.Key, setting.Value);
        }

        if (config.MessageTimeoutMs > copyTimeoutMs)
        {
            // The loop gives up on a copy at the effective timeout: the producer must not deliver it later.
            config.MessageTimeoutMs = copyTimeoutMs;
        }

        return config;
    }
}
