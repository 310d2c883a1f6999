using System;
using System.Linq;
using Confluent.Kafka;
using Options = KafkaProtobuf.Hosting.KafkaProtobufConsumerOptions;

namespace KafkaProtobuf.Hosting;

/// <summary>The rules a consumer's options must follow, checked when it starts: every rule broken is named at once.</summary>
internal static class ConsumerOptionsValidation
{
    /// <summary>
    /// Settings of the classic group protocol that KIP-848's protocol (<c>group.protocol=consumer</c>) refuses: the
    /// broker sets them.
    /// </summary>
    private static readonly string[] ClassicOnlySettings =
        ["session.timeout.ms", "heartbeat.interval.ms", "partition.assignment.strategy", "group.protocol.type"];

    /// <summary>The classic group protocol's settings a consumer config sets.</summary>
    private static string[] ClassicGroupSettings(ConsumerConfig consumer) =>
        ClassicOnlySettings.Where(setting => consumer.Get(setting) is not null).ToArray();

    /// <summary>
    /// Checks the options before the consumer starts, <paramref name="batches"/> when its handler takes batches: every
    /// rule broken is named at once (see <c>OptionProblems</c>, as the other packages' options are checked).
    /// </summary>
    /// <exception cref="InvalidOperationException">What is missing, out of range, or contradicts the offset rule.</exception>
    internal static void Validate(this KafkaProtobufConsumerOptions options, string name, bool batches = false)
    {
        var problems = new OptionProblems("The KafkaProtobuf consumer '" + name + "'")
            .Refuse(options.Topics.Count == 0, "Topics is empty: add a topic to read.")
            .Refuse(
                string.IsNullOrEmpty(options.Consumer.BootstrapServers) || string.IsNullOrEmpty(options.Consumer.GroupId),
                "Consumer needs bootstrap.servers and group.id.")
            .Refuse(
                options.Consumer.EnableAutoOffsetStore == true || options.Consumer.EnableAutoCommit == false,
                "The hosted consumer stores each offset itself once the record is handled and lets auto-commit send "
                    + "them: leave enable.auto.offset.store and enable.auto.commit unset.")
            .Refuse(
                string.Equals(options.Consumer.Get("group.protocol"), "consumer", StringComparison.OrdinalIgnoreCase)
                    && ClassicGroupSettings(options.Consumer) is { Length: > 0 } classic,
                "Consumer's group.protocol is 'consumer' (KIP-848: the broker assigns partitions and sets the session), which takes no "
                + string.Join(", ", ClassicGroupSettings(options.Consumer))
                    + (ClassicGroupSettings(options.Consumer).Length == 1 ? ": remove it" : ": remove them")
                    + ", or use group.protocol 'classic'.")
            .Require(options.MaxConcurrentHandlers >= 1, nameof(Options.MaxConcurrentHandlers), options.MaxConcurrentHandlers, "at least 1")
            .Require(options.MaxReadAheadBytes >= 1, nameof(Options.MaxReadAheadBytes), options.MaxReadAheadBytes, "at least 1")
            .Require(
                options.LagDegradedThreshold >= 0, nameof(Options.LagDegradedThreshold), options.LagDegradedThreshold, "0 (never) or more")
            .Require(
                options.LagUnhealthyThreshold >= 0,
                nameof(Options.LagUnhealthyThreshold),
                options.LagUnhealthyThreshold,
                "0 (never) or more")
            .Refuse(
                options.LagUnhealthyThreshold > 0
                    && options.LagDegradedThreshold > 0
                    && options.LagUnhealthyThreshold <= options.LagDegradedThreshold,
                "LagUnhealthyThreshold ("
                    + options.LagUnhealthyThreshold + ") is not above LagDegradedThreshold (" + options.LagDegradedThreshold
                    + "): a consumer would be unhealthy before it is degraded.")
            .Require(options.RevokeTimeout >= TimeSpan.Zero, nameof(Options.RevokeTimeout), options.RevokeTimeout, "at least zero")
            .Require(options.ReadAgainDelay >= TimeSpan.Zero, nameof(Options.ReadAgainDelay), options.ReadAgainDelay, "at least zero")
            .Require(options.CopyTimeout > TimeSpan.Zero, nameof(Options.CopyTimeout), options.CopyTimeout, "positive")
            .RequireOneOf(options.HandlingOrder, nameof(Options.HandlingOrder), HandlingOrder.Partition, HandlingOrder.Key)
            .Require(
                options.HandlerFailures.MaxAttempts >= 1, "HandlerFailures.MaxAttempts", options.HandlerFailures.MaxAttempts, "at least 1")
            .Require(
                options.HandlerFailures.RetryBackoff >= TimeSpan.Zero,
                "HandlerFailures.RetryBackoff",
                options.HandlerFailures.RetryBackoff,
                "at least zero")
            .Require(
                options.HandlerFailures.MaxRetryBackoff >= options.HandlerFailures.RetryBackoff,
                "HandlerFailures.MaxRetryBackoff",
                options.HandlerFailures.MaxRetryBackoff,
                "at least RetryBackoff (" + options.HandlerFailures.RetryBackoff + ")")
            .RequireOneOf(
                options.HandlerFailures.WhenAttemptsRunOut,
                "HandlerFailures.WhenAttemptsRunOut",
                HandlerFailureAction.DeadLetter,
                HandlerFailureAction.StopConsumer)
            .Refuse(
                options.CopyProducer?.MessageTimeoutMs is { } messageTimeout && messageTimeout > options.CopyTimeout.TotalMilliseconds,
                "CopyProducer's message.timeout.ms ("
                    + options.CopyProducer?.MessageTimeoutMs?.ToString(System.Globalization.CultureInfo.InvariantCulture)
                + ") is longer than CopyTimeout (" + options.CopyTimeout + "): the producer would still deliver a dead letter "
                    + "the consumer gave up on and writes again. Set CopyTimeout instead; it sets both.");
        for (int i = 0; i < options.RetryTopics.Delays.Count; i++)
        {
            problems.Require(
                options.RetryTopics.Delays[i] > TimeSpan.Zero,
                "RetryTopics.Delays[" + i.ToString(System.Globalization.CultureInfo.InvariantCulture) + "]",
                options.RetryTopics.Delays[i],
                "positive");
        }

        string? pattern = options.Topics.FirstOrDefault(t => t.Length > 0 && t[0] == '^');
        problems.Refuse(
            options.RetryTopics.Delays.Count > 0 && pattern is not null,
            "Retry topics are named after their topic, which a pattern (" + pattern + ") is not: give RetryTopics topics by name.");
        if (batches)
        {
            problems
                .Require(options.Batches.MaxSize >= 1, "Batches.MaxSize", options.Batches.MaxSize, "at least 1")
                .Require(options.Batches.MaxWait > TimeSpan.Zero, "Batches.MaxWait", options.Batches.MaxWait, "positive")
                .RequireOneOf(
                    options.Batches.WhenBatchFails, "Batches.WhenBatchFails", FailedBatchAction.Split, FailedBatchAction.WholeBatch)
                .Refuse(
                    options.HandlingOrder == HandlingOrder.Key,
                    "A batch handler takes a partition's records in its order: HandlingOrder Key does not apply to it "
                        + "(MaxConcurrentHandlers counts batches of different partitions).")
                .Refuse(
                    options.Batches.AcrossPartitions && options.MaxConcurrentHandlers > 1,
                    "Batches across partitions are handled one at a time, in the order they were read: set "
                        + "MaxConcurrentHandlers to 1, or leave Batches.AcrossPartitions off to handle several "
                            + "partitions' batches at once.")
                .Refuse(
                    options.RetryTopics.Delays.Count > 0 && options.Batches.AcrossPartitions,
                    "A retry topic's record waits for its due time by pausing its partition, which batches across "
                        + "partitions cannot do: leave Batches.AcrossPartitions off to use RetryTopics.");
        }

        problems.ThrowIfAnyAtStart();
    }
}
