using System;
using System.Collections.Generic;
using System.Diagnostics;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Batching;
using KafkaProtobuf.Hosting.Consuming;
using KafkaProtobuf.Hosting.Handling;
using KafkaProtobuf.Hosting.Scheduling;

namespace KafkaProtobuf.Hosting.Loops;

/// <summary>
/// Batches across partitions (<see cref="BatchOptions.AcrossPartitions"/>): records are collected into batches of any
/// partitions, and each is handled and concluded on the loop thread, one at a time, as a record in sequential mode.
/// A poison record or a record read again later cuts its partition's batch: what came before it goes on, in order.
/// </summary>
internal sealed class BatchAcrossPartitionsLoop<TKey, TValue> : IConsumeLoop
{
    // The consume waits at most this long with a batch open, so that shutdown is not held up by a long MaxWait.
    private static readonly TimeSpan LongestConsumeWithBatchOpen = TimeSpan.FromMilliseconds(100);

    private readonly LoopContext<TKey, TValue> _context;
    private readonly BatchRunner<TKey, TValue> _runner;
    private readonly BatchCollector<TKey, TValue> _collector;
    private ConsumerFailure? _failure; // why a conclusion ended the loop, for Run to return

    internal BatchAcrossPartitionsLoop(
        LoopContext<TKey, TValue> context, BatchRunner<TKey, TValue> runner, BatchCollector<TKey, TValue> collector)
    {
        _context = context;
        _runner = runner;
        _collector = collector;
    }

    public ConsumerFailure? Run()
    {
        try
        {
            return Loop();
        }
        finally
        {
            _collector.DiscardAll(); // not handed over: not committed, read again
        }
    }

    public ConsumerFailure? Revoke(IReadOnlyList<TopicPartition> partitions)
    {
        _collector.Discard(partitions);
        _context.LetGo(partitions);
        return null;
    }

    private ConsumerFailure? Loop()
    {
        LoopContext<TKey, TValue> context = _context;
        BatchCollector<TKey, TValue> collector = _collector;
        RawBytesCapture<TKey> keys = context.Client.KeyCapture;
        RawBytesCapture<TValue> values = context.Client.ValueCapture;
        while (!context.Stopping.IsCancellationRequested)
        {
            if (collector.TryTakeDue(out RecordBatch<TKey, TValue> due) && !HandleOnLoop(due))
            {
                return _failure;
            }

            context.ApplyOperatorRequests();
            context.Pausing.ResumeDue();
            TimeSpan? wait = collector.UntilNextDue is { } left
                ? (left < LongestConsumeWithBatchOpen ? left : LongestConsumeWithBatchOpen)
                : null;
            Consumed consumed = context.Consume(wait, out ConsumeResult<TKey, TValue>? record, out ConsumeException? unread);
            switch (consumed)
            {
                case Consumed.Record when context.TryTakeUnwritten(record!, out HandlerResult failed):
                    // Read again to write its copy: after what was collected before it, and not handed to the handler again.
                    if (!HandleCut(record!.TopicPartitionOffset) || !GoOnAfter(context.Conclusion.Conclude(
                        record!, failed, null, ownBytes: null)))
                    {
                        return _failure;
                    }

                    break;
                case Consumed.Record:
                    if (collector.Add(record!, keys.Last, keys.LastIsNull, values.Last, values.LastIsNull) is { } full
                        && !HandleOnLoop(full))
                    {
                        return _failure;
                    }

                    break;
                case Consumed.Poison or Consumed.SchemaUnavailable:
                    if (!HandleCut(unread!.ConsumerRecord.TopicPartitionOffset) || !GoOnAfter(context.ConcludeUnread(
                        consumed, unread)))
                    {
                        return _failure;
                    }

                    break;
                case Consumed.Nothing:
                    continue;
                default:
                    return context.EndOf(consumed); // stopping, or failed
            }
        }

        return null;
    }

    /// <summary>
    /// A record of the partition cannot join a batch: what was collected before it is handled first. False: the
    /// loop ends.
    /// </summary>
    private bool HandleCut(TopicPartitionOffset record) => _collector.Cut(record.Topic, record.Partition) is not { } before
        || HandleOnLoop(before);

    /// <summary>Runs and concludes a batch on the loop thread. False: the loop ends.</summary>
    private bool HandleOnLoop(RecordBatch<TKey, TValue> batch)
    {
        AfterConclusion after;
        using (Activity? activity = _context.Tracing.StartBatch(batch))
        {
            batch.Result = LoopContext<TKey, TValue>.Completed(_runner.RunAsync(batch, activity));
            after = _context.Conclusion.Conclude(batch, activity);
        }

        if (after.IsReadAgain)
        {
            // The failed dead letter moved its partition back; the other partitions' records after it are read again too.
            foreach (TopicPartitionOffset position in batch.ReadAgainPositions())
            {
                _context.Client.Seek(position);
            }
        }

        return GoOnAfter(after);
    }

    /// <summary>Whether the loop goes on after a conclusion (see <see cref="LoopContext{TKey, TValue}.GoOnAfter"/>); if not, why.</summary>
    private bool GoOnAfter(AfterConclusion after)
    {
        if (_context.GoOnAfter(after))
        {
            return true;
        }

        _failure = after.Failure;
        return false;
    }
}
