using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Threading.Tasks;
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

    private readonly LoopParts<TKey, TValue> _parts;
    private readonly BatchRunner<TKey, TValue> _runner;
    private readonly BatchCollector<TKey, TValue> _collector;

    internal BatchAcrossPartitionsLoop(LoopParts<TKey, TValue> parts, BatchRunner<TKey, TValue> runner, BatchCollector<TKey, TValue> collector)
    {
        _parts = parts;
        _runner = runner;
        _collector = collector;
    }

    public long MostHeldBytes => 0;

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
        return true;
    }

    private void Loop()
    {
        BatchCollector<TKey, TValue> collector = _collector;
        ConsumeStep<TKey, TValue> step = _parts.Step;
        while (!_parts.Stopping.IsCancellationRequested)
        {
            if (collector.TryTakeDue(out RecordBatch<TKey, TValue> due) && !HandleOnLoop(due))
            {
                return;
            }

            TimeSpan? wait = collector.UntilNextDue is { } left ? (left < LongestConsumeWithBatchOpen ? left : LongestConsumeWithBatchOpen) : null;
            Consumed consumed = _parts.Consume(wait, out ConsumeResult<TKey, TValue>? record, out ConsumeException? unread);
            switch (consumed)
            {
                case Consumed.Record when _parts.Conclusion.Unwritten.TryTake(record!.Topic, record.Partition, record.Offset, out HandlerResult failed):
                    // Read again to write its dead letter: after what was collected before it, and not handed to the handler again.
                    if ((collector.Cut(record.Topic, record.Partition) is { } earlier && !HandleOnLoop(earlier)) || !_parts.GoOnAfter(_parts.Conclusion.Conclude(record, failed, null, ownBytes: null)))
                    {
                        return;
                    }

                    break;
                case Consumed.Record:
                    if (collector.Add(record!, step.Keys.Last, step.Keys.LastIsNull, step.Values.Last, step.Values.LastIsNull) is { } full && !HandleOnLoop(full))
                    {
                        return;
                    }

                    break;
                case Consumed.Poison or Consumed.SchemaUnavailable:
                    TopicPartitionOffset position = unread!.ConsumerRecord.TopicPartitionOffset;
                    if ((collector.Cut(position.Topic, position.Partition) is { } before && !HandleOnLoop(before)) || !_parts.GoOnAfter(_parts.ConcludeUnread(consumed, unread)))
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

    /// <summary>Runs and concludes a batch on the loop thread. False: the consumer stops.</summary>
    private bool HandleOnLoop(RecordBatch<TKey, TValue> batch)
    {
        AfterConclusion after;
        using (Activity? activity = _parts.Tracing.StartBatch(batch))
        {
            ValueTask<HandlerResult> run = _runner.RunAsync(batch, activity);
            batch.Result = run.IsCompletedSuccessfully ? run.Result : run.AsTask().GetAwaiter().GetResult();
            after = _parts.Conclusion.Conclude(batch, activity);
        }

        if (after == AfterConclusion.ReadAgain)
        {
            // The failed dead letter moved its partition back; the other partitions' records after it are read again too.
            foreach (TopicPartitionOffset position in batch.ReadAgainPositions())
            {
                _parts.Step.Seek(position);
            }
        }

        return _parts.GoOnAfter(after);
    }
}
