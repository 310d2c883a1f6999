using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Conclusion;
using KafkaProtobuf.Hosting.Consuming;
using KafkaProtobuf.Hosting.Diagnostics;
using KafkaProtobuf.Hosting.Handling;
using KafkaProtobuf.Hosting.Health;
using KafkaProtobuf.Hosting.Retrying;
using KafkaProtobuf.Hosting.Scheduling;

namespace KafkaProtobuf.Hosting.Loops;

/// <summary>
/// What every consume loop works with (the client, the conclusion, spans, retry topics, pauses, the signals to stop)
/// and the steps they share: consume until shutdown, what follows a conclusion, a record that could not be read, a
/// record read again to write its copy.
/// </summary>
internal sealed class LoopContext<TKey, TValue>
{
    /// <summary>After the host's shutdown timeout cancels the handlers: how long the loop may still take to end.</summary>
    internal static readonly TimeSpan CloseGrace = TimeSpan.FromSeconds(10);

    internal LoopContext(
        ConsumerClient<TKey, TValue> client,
        RecordConclusion<TKey, TValue> conclusion,
        ConsumerTracing tracing,
        RetryTiers? retries,
        PartitionPausing pausing,
        TimeSpan readAgainDelay,
        CancellationToken stopping,
        CancellationToken abortHandlers,
        OperatorRequests? requests = null)
    {
        Requests = requests ?? new OperatorRequests();
        Client = client;
        Conclusion = conclusion;
        Tracing = tracing;
        Retries = retries;
        Pausing = pausing;
        ReadAgainDelay = readAgainDelay;
        Stopping = stopping;
        AbortHandlers = abortHandlers;
    }

    private ConsumeResult<TKey, TValue>? _tierRecord; // the tier's record last read, and what its hops said
    private TierRecord _tierReading;

    internal ConsumerClient<TKey, TValue> Client { get; }

    /// <summary>Operators' requests (pause, resume, rewind a partition) for this loop thread to apply.</summary>
    internal OperatorRequests Requests { get; }

    internal RecordConclusion<TKey, TValue> Conclusion { get; }

    internal ConsumerTracing Tracing { get; }

    internal RetryTiers? Retries { get; }

    /// <summary>The read-ahead budget and the delays before records are read again.</summary>
    internal PartitionPausing Pausing { get; }

    internal TimeSpan ReadAgainDelay { get; }

    /// <summary>Shutdown has begun: take nothing more.</summary>
    internal CancellationToken Stopping { get; }

    /// <summary>The host's shutdown timeout ran out: handlers still running are cancelled.</summary>
    internal CancellationToken AbortHandlers { get; }

    /// <summary>
    /// A retry topic's record just consumed whose due time has not come: how long until it does. Any other record: false,
    /// after one look-up (its bytes are copied only for a record of a tier, whose hops' signatures cover them).
    /// </summary>
    internal bool NotYetDue(ConsumeResult<TKey, TValue> record, out TimeSpan wait)
    {
        wait = TimeSpan.Zero;
        if (Retries?.TierOf(record.Topic) is null)
        {
            return false;
        }

        TierRecord read = ReadTier(record);
        wait = read.Wait;
        return read.NotYetDue;
    }

    /// <summary>The record just consumed as its handler sees it: a retry topic's at the position it was first read from.</summary>
    internal ConsumeResult<TKey, TValue> AsOriginal(ConsumeResult<TKey, TValue> record) =>
        Retries?.TierOf(record.Topic) is null ? record : RetryTiers.AsOriginal(record, ReadTier(record));

    /// <summary>
    /// Applies what operators asked, between records (the loop thread alone pauses, resumes and seeks): one read when
    /// nothing was asked.
    /// </summary>
    internal void ApplyOperatorRequests()
    {
        if (Requests.IsEmpty)
        {
            return;
        }

        while (Requests.TryTake(out OperatorRequest request))
        {
            request.Complete(Apply(request));
        }
    }

    /// <summary>The client's consume (see <see cref="ConsumerClient{TKey, TValue}.Consume"/>), until shutdown.</summary>
    internal Consumed Consume(TimeSpan? timeout, out ConsumeResult<TKey, TValue>? record, out ConsumeException? unread) =>
        Client.Consume(timeout, Stopping, out record, out unread);

    private PartitionActionResult Apply(OperatorRequest request)
    {
        TopicPartition partition = request.Partition;
        if (!Client.IsAssigned(partition))
        {
            return PartitionActionResult.NotAssigned;
        }

        switch (request.Action)
        {
            case OperatorAction.Pause:
                Pausing.PauseByOperator(partition);
                break;
            case OperatorAction.Resume:
                Pausing.ResumeByOperator(partition);
                break;
            default:
                if (!Client.CanRewind(partition, request.Offset))
                {
                    return PartitionActionResult.OffsetOutOfRange;
                }

                Pausing.Rewind(new TopicPartitionOffset(partition, request.Offset));
                break;
        }

        return PartitionActionResult.Applied;
    }

    /// <summary>
    /// Partitions taken away (their records let go by the loop): what their records' copies that were not written left
    /// behind is forgotten, and whatever paused them is over (their new owner reads them).
    /// </summary>
    internal void LetGo(IReadOnlyList<TopicPartition> partitions)
    {
        Conclusion.Unwritten.Forget(partitions);
        Pausing.LetGo(partitions);
    }

    /// <summary>A record read again to write its copy: what its handler made of it the first time (not to be handled again).</summary>
    internal bool TryTakeUnwritten(ConsumeResult<TKey, TValue> record, out HandlerResult failed) =>
        Conclusion.Unwritten.TryTake(record.Topic, record.Partition, record.Offset, out failed);

    /// <summary>The loop thread waits for a handler it started (most complete at once) until it completes or fails for good.</summary>
    internal static HandlerResult Completed(ValueTask<HandlerResult> run) =>
        run.IsCompletedSuccessfully ? run.Result : run.AsTask().GetAwaiter().GetResult();

    /// <summary>
    /// After a conclusion on the loop thread: whether the loop goes on (after the delay, when a record is read again).
    /// False: it ends, with the conclusion's <see cref="AfterConclusion.Failure"/> (null at shutdown) as the reason.
    /// </summary>
    internal bool GoOnAfter(AfterConclusion after) =>
        !after.Ends && (!after.IsReadAgain || !Stopping.WaitHandle.WaitOne(ReadAgainDelay));

    /// <summary>Why a consume that ended the loop did: the client's failure, or null at shutdown.</summary>
    internal ConsumerFailure? EndOf(Consumed consumed) => consumed == Consumed.Failed ? Client.Failure : null;

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

        Client.Seek(unread.ConsumerRecord.TopicPartitionOffset);
        return AfterConclusion.ReadAgain;
    }

    /// <summary>
    /// Shutting down a scheduled loop: start nothing more, let the work in hand finish (its handlers are cancelled when
    /// the host's shutdown timeout runs out), and conclude what finished; closing the client then commits it.
    /// </summary>
    internal void Drain<TWork>(PartitionScheduler<TWork> scheduler)
        where TWork : ScheduledWork
    {
        using var giveUp = new CancellationTokenSource();
        // handlers that ignore their token
        using CancellationTokenRegistration _ = AbortHandlers.Register(() => giveUp.CancelAfter(CloseGrace));
        scheduler.Drain(giveUp.Token);
    }

    /// <summary>
    /// What a tier's record's hops say, read once for the record just consumed: the due check and the handler's view
    /// follow each other on this loop thread, and the reading verifies signatures over the record's bytes.
    /// </summary>
    private TierRecord ReadTier(ConsumeResult<TKey, TValue> record)
    {
        if (!ReferenceEquals(record, _tierRecord))
        {
            _tierReading = Retries!.Read(Raw(record));
            _tierRecord = record;
        }

        return _tierReading;
    }

    /// <summary>The record just consumed as it was written: its key and value as the captures hold them.</summary>
    private ConsumeResult<byte[], byte[]> Raw(ConsumeResult<TKey, TValue> record) => new()
    {
        TopicPartitionOffset = record.TopicPartitionOffset,
        Message = new Message<byte[], byte[]>
        {
            Key = Client.KeyCapture.ToArray()!,
            Value = Client.ValueCapture.ToArray()!,
            Headers = record.Message?.Headers ?? [],
            Timestamp = record.Message?.Timestamp ?? default,
        },
    };
}
