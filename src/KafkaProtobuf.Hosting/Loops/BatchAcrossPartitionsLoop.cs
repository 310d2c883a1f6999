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

    internal BatchAcrossPartitionsLoop(
        LoopContext<TKey, TValue> context, BatchRunner<TKey, TValue> runner, BatchCollector<TKey, TValue> collector)
    {
        _context = context;
        _runner = runner;
        _collector = collector;
    }

    public void Run()
    {
        try
        {
            Loop();
        }
        finally
        {
            _collector.DiscardAll(); // not handed over: not committed, read again
        }
    }

    public bool Revoke(IReadOnlyList<TopicPartition> partitions)
    {
        _collector.Discard(partitions);
        _context.LetGo(partitions);
        return true;
    }

    private void Loop()
    {
        LoopContext<TKey, TValue> context = _context;
        BatchCollector<TKey, TValue> collector = _collector;
        RawBytesCapture<TKey> keys = context.Client.KeyCapture;
        RawBytesCapture<TValue> values = context.Client.ValueCapture;
        while (!context.Stopping.IsCancellationRequested)
        {
            if (collector.TryTakeDue(out RecordBatch<TKey, TValue> due) && !HandleOnLoop(due))
            {
                return;
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
                    if (!HandleCut(record!.TopicPartitionOffset) || !context.GoOnAfter(context.Conclusion.Conclude(
                        record!, failed, null, ownBytes: null)))
                    {
                        return;
                    }

                    break;
                case Consumed.Record:
                    if (collector.Add(record!, keys.Last, keys.LastIsNull, values.Last, values.LastIsNull) is { } full
                        && !HandleOnLoop(full))
                    {
                        return;
                    }

                    break;
                case Consumed.Poison or Consumed.SchemaUnavailable:
                    if (!HandleCut(unread!.ConsumerRecord.TopicPartitionOffset) || !context.GoOnAfter(context.ConcludeUnread(
                        consumed, unread)))
                    {
                        return;
                    }

                    break;
                case Consumed.Nothing:
                    continue;
                default:
                    return; // stopping, or failed
            }
        }
    }

    /// <summary>
    /// A record of the partition cannot join a batch: what was collected before it is handled first. False: the
    /// consumer stops.
    /// </summary>
    private bool HandleCut(TopicPartitionOffset record) => _collector.Cut(record.Topic, record.Partition) is not { } before
        || HandleOnLoop(before);

    /// <summary>Runs and concludes a batch on the loop thread. False: the consumer stops.</summary>
    private bool HandleOnLoop(RecordBatch<TKey, TValue> batch)
    {
        AfterConclusion after;
        using (Activity? activity = _context.Tracing.StartBatch(batch))
        {
            batch.Result = LoopContext<TKey, TValue>.Completed(_runner.RunAsync(batch, activity));
            after = _context.Conclusion.Conclude(batch, activity);
        }

        if (after == AfterConclusion.ReadAgain)
        {
            // The failed dead letter moved its partition back; the other partitions' records after it are read again too.
            foreach (TopicPartitionOffset position in batch.ReadAgainPositions())
            {
                _context.Client.Seek(position);
            }
        }

        return _context.GoOnAfter(after);
    }
}
