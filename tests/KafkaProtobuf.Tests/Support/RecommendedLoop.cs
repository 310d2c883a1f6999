using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;

namespace KafkaProtobuf.Tests.Support;

/// <summary>
/// The README's recommended consume loop, as a user writes it, with what it did recorded for the assertions: good
/// records, dead letters, dead-letter failures it backed off from, and any exception that escaped. With
/// <see cref="DeadLetterOffsetHandling.Store"/> it stores each good record's offset (auto-commit sends them); with
/// <see cref="DeadLetterOffsetHandling.StoreAndCommit"/> it is a manual-commit user's loop that commits each record.
/// </summary>
public sealed class RecommendedLoop<TKey, TValue>
{
    private readonly IConsumer<TKey, TValue> _consumer;
    private readonly IProducer<byte[], byte[]> _deadLetters;
    private readonly string _deadLetterTopic;
    private readonly DeadLetterOffsetHandling _offsetHandling;
    private string _phase = "not started";

    public RecommendedLoop(IConsumer<TKey, TValue> consumer, IProducer<byte[], byte[]> deadLetters, string deadLetterTopic, DeadLetterOffsetHandling offsetHandling)
    {
        _consumer = consumer;
        _deadLetters = deadLetters;
        _deadLetterTopic = deadLetterTopic;
        _offsetHandling = offsetHandling;
    }

    public string Name { get; init; } = "loop";

    /// <summary>How long DeadLetter waits for the broker's acknowledgement.</summary>
    public TimeSpan CopyTimeout { get; set; } = TimeSpan.FromSeconds(10);

    /// <summary>The back-off after a retriable dead-letter failure.</summary>
    public TimeSpan BackOff { get; init; } = TimeSpan.FromMilliseconds(100);

    /// <summary>
    /// Called on the loop's thread with each record Consume gave it, good or poison, before it is handled: the user's
    /// processing time, and a test's record of what each member read in which order.
    /// </summary>
    public Action<TopicPartitionOffset>? Delivered { get; init; }

    /// <summary>Called with each poison record before DeadLetter runs: a test's hook to line faults up with it.</summary>
    public Action<ConsumeException>? BeforeDeadLetter { get; init; }

    /// <summary>Called with each good record once its offset is stored (or committed).</summary>
    public Action<ConsumeResult<TKey, TValue>>? AfterGood { get; init; }

    /// <summary>Called with each dead letter written.</summary>
    public Action<CopyResult>? AfterDeadLettered { get; init; }

    /// <summary>Called after each retriable dead-letter failure, before the back-off.</summary>
    public Action<DeadLetterException>? AfterDeadLetterFailure { get; init; }

    public ConcurrentQueue<ConsumeResult<TKey, TValue>> Good { get; } = new();

    public ConcurrentQueue<CopyResult> DeadLettered { get; } = new();

    public ConcurrentQueue<DeadLetterException> DeadLetterFailures { get; } = new();

    /// <summary>Records whose writer's schema could not be obtained: the loop seeked back to each and consumed it again.</summary>
    public ConcurrentQueue<ConsumeException> SchemaUnavailable { get; } = new();

    /// <summary>Errors of the consumer or a broker that Consume passed on (not records): logged and consumed past.</summary>
    public ConcurrentQueue<ConsumeException> ConsumerErrors { get; } = new();

    /// <summary>Called after each unavailable schema, before the back-off.</summary>
    public Action<ConsumeException>? AfterSchemaUnavailable { get; init; }

    /// <summary>Commits of good records that failed in the manual-commit loop (its own commits, not DeadLetter's).</summary>
    public ConcurrentQueue<KafkaException> OwnCommitFailures { get; } = new();

    /// <summary>The non-retriable dead-letter failure the loop stopped on, as the README says to.</summary>
    public DeadLetterException? StoppedOn { get; private set; }

    /// <summary>What the loop's thread is doing now (consuming, dead-lettering, backing off...): for a timed-out test's message.</summary>
    public string Phase => Volatile.Read(ref _phase);

    /// <summary>Anything else that escaped the loop: the README's loop must not let anything through.</summary>
    public Exception? Escaped { get; private set; }

    /// <summary>Every record the loop finished with: good records consumed and poison records dead-lettered (repeats included).</summary>
    public IEnumerable<TopicPartitionOffset> Handled() =>
        Good.Select(r => r.TopicPartitionOffset).Concat(DeadLettered.Select(r => r.Record));

    /// <summary>Runs the loop on the calling thread until <paramref name="stop"/> is cancelled or the loop stops itself.</summary>
    public void Run(CancellationToken stop)
    {
        try
        {
            while (!stop.IsCancellationRequested)
            {
                try
                {
                    Volatile.Write(ref _phase, "consuming");
                    ConsumeResult<TKey, TValue>? result = _consumer.Consume(TimeSpan.FromMilliseconds(50));
                    if (result is null)
                    {
                        continue;
                    }

                    Volatile.Write(ref _phase, "handling " + result.TopicPartitionOffset);
                    Delivered?.Invoke(result.TopicPartitionOffset);
                    Good.Enqueue(result);
                    if (_offsetHandling == DeadLetterOffsetHandling.Store)
                    {
                        _consumer.StoreOffset(result); // EnableAutoOffsetStore = false: at least once
                    }
                    else
                    {
                        CommitOwn(result);
                    }

                    AfterGood?.Invoke(result);
                }
                catch (ConsumeException e) when (e.IsDeserializationFailure())
                {
                    Delivered?.Invoke(e.ConsumerRecord.TopicPartitionOffset);
                    BeforeDeadLetter?.Invoke(e);
                    Volatile.Write(ref _phase, "dead-lettering " + e.ConsumerRecord.TopicPartitionOffset);
                    try
                    {
                        CopyResult written = _consumer.DeadLetter(e, _deadLetters, _deadLetterTopic, CopyTimeout, _offsetHandling);
                        DeadLettered.Enqueue(written);
                        AfterDeadLettered?.Invoke(written);
                    }
                    catch (DeadLetterException d) when (d.IsRetriable)
                    {
                        // DeadLetter moved the consumer back to the record: back off, and the next Consume brings it again.
                        DeadLetterFailures.Enqueue(d);
                        AfterDeadLetterFailure?.Invoke(d);
                        Volatile.Write(ref _phase, "backing off after a dead-letter failure");
                        stop.WaitHandle.WaitOne(BackOff);
                    }
                }
                catch (ConsumeException e) when (e.IsSchemaUnavailable())
                {
                    // Not bad data: commit nothing past it, go back to it, back off, read it again.
                    SchemaUnavailable.Enqueue(e);
                    _consumer.Seek(e.ConsumerRecord.TopicPartitionOffset);
                    AfterSchemaUnavailable?.Invoke(e);
                    Volatile.Write(ref _phase, "backing off after an unavailable schema");
                    stop.WaitHandle.WaitOne(BackOff);
                }
                catch (ConsumeException e) when (e.IsRecoverableConsumerError())
                {
                    ConsumerErrors.Enqueue(e); // a fetch that failed, not a record: librdkafka retries it
                }
            }
        }
        catch (DeadLetterException d)
        {
            StoppedOn = d; // a dead letter that cannot be written: stop on purpose
        }
        catch (Exception e)
        {
            Escaped = e;
        }
        finally
        {
            Volatile.Write(ref _phase, "ended");
        }
    }

    /// <summary>Runs the loop on a new thread; join it after cancelling <paramref name="stop"/>.</summary>
    public Thread Start(CancellationToken stop)
    {
        var thread = new Thread(() => Run(stop)) { IsBackground = true, Name = Name };
        thread.Start();
        return thread;
    }

    private void CommitOwn(ConsumeResult<TKey, TValue> result)
    {
        try
        {
            _consumer.Commit(result);
        }
        catch (KafkaException e)
        {
            // A manual-commit loop must survive its own failed commits too (a rebalance, a coordinator move): the next
            // commit carries the offset, or the partition's new owner reads the record again.
            OwnCommitFailures.Enqueue(e);
        }
    }
}
