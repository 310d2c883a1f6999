using System;
using System.Threading;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Conclusion;
using KafkaProtobuf.Hosting.Consuming;
using KafkaProtobuf.Hosting.Diagnostics;
using KafkaProtobuf.Hosting.Retrying;
using KafkaProtobuf.Hosting.Scheduling;

namespace KafkaProtobuf.Hosting.Loops;

/// <summary>What every consume loop works with: the consume step, the conclusion, and the signals to stop.</summary>
internal sealed class LoopParts<TKey, TValue>
{
    /// <summary>After the host's shutdown timeout cancels the handlers: how long the loop may still take to end.</summary>
    internal static readonly TimeSpan CloseGrace = TimeSpan.FromSeconds(10);

    private volatile bool _abandoned;

    internal LoopParts(
        string name,
        ConsumeStep<TKey, TValue> step,
        RecordConclusion<TKey, TValue> conclusion,
        ConsumerTracing tracing,
        RetryTiers? retries,
        IConsumerProbe? probe,
        TimeSpan readAgainDelay,
        CancellationToken stopping,
        CancellationToken abortHandlers)
    {
        Name = name;
        Step = step;
        Conclusion = conclusion;
        Tracing = tracing;
        Retries = retries;
        Probe = probe;
        ReadAgainDelay = readAgainDelay;
        Stopping = stopping;
        AbortHandlers = abortHandlers;
    }

    internal string Name { get; }

    internal ConsumeStep<TKey, TValue> Step { get; }

    internal RecordConclusion<TKey, TValue> Conclusion { get; }

    internal ConsumerTracing Tracing { get; }

    internal RetryTiers? Retries { get; }

    internal IConsumerProbe? Probe { get; }

    internal TimeSpan ReadAgainDelay { get; }

    /// <summary>Shutdown has begun: take nothing more.</summary>
    internal CancellationToken Stopping { get; }

    /// <summary>The host's shutdown timeout ran out: handlers still running are cancelled.</summary>
    internal CancellationToken AbortHandlers { get; }

    /// <summary>What a killed process does (for tests): the loop ends without letting what it holds finish or storing it.</summary>
    internal bool Abandoned
    {
        get => _abandoned;
        set => _abandoned = value;
    }

    /// <summary>The consume step (see <see cref="ConsumeStep{TKey, TValue}.Consume"/>), until shutdown.</summary>
    internal Consumed Consume(TimeSpan? timeout, out ConsumeResult<TKey, TValue>? record, out ConsumeException? unread) =>
        Step.Consume(timeout, Stopping, out record, out unread);

    /// <summary>After a conclusion on the loop thread: whether the loop goes on (after the delay, when a record is read again).</summary>
    internal bool GoOnAfter(AfterConclusion after) =>
        after != AfterConclusion.Stop && (after != AfterConclusion.ReadAgain || !Stopping.WaitHandle.WaitOne(ReadAgainDelay));

    /// <summary>
    /// A record the loop thread cannot hand to a handler: a poison record is dead-lettered; one whose writer's schema is
    /// unavailable is not bad data, so nothing is stored past it and the consumer goes back to it, to read it again.
    /// </summary>
    internal AfterConclusion ConcludeUnread(Consumed consumed, ConsumeException unread)
    {
        if (consumed == Consumed.Poison)
        {
            return Conclusion.DeadLetterPoison(unread);
        }

        Step.Seek(unread.ConsumerRecord.TopicPartitionOffset);
        return AfterConclusion.ReadAgain;
    }
}
