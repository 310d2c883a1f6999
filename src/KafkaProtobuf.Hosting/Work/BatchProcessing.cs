using System.Diagnostics;
using System.Threading.Tasks;
using KafkaProtobuf.Hosting.Batching;
using KafkaProtobuf.Hosting.Conclusion;
using KafkaProtobuf.Hosting.Diagnostics;
using KafkaProtobuf.Hosting.Handling;
using KafkaProtobuf.Hosting.Scheduling;

namespace KafkaProtobuf.Hosting.Work;

/// <summary>
/// What the scheduler does with one partition's batch: run the batch handler (on a worker, or the loop), then, in its
/// partition's order, conclude the batch as one record would be; a poison record standing in the partition's order is
/// dead-lettered in its turn.
/// </summary>
internal sealed class BatchProcessing<TKey, TValue>
{
    private readonly RecordConclusion<TKey, TValue> _conclusion;
    private readonly BatchRunner<TKey, TValue> _runner;
    private readonly BatchCollector<TKey, TValue> _collector;
    private readonly ConsumerTracing _tracing;

    /// <param name="conclusion">Concludes a batch its handler is done with.</param>
    /// <param name="runner">The batch handler, with its retries and split.</param>
    /// <param name="collector">The batches being collected: a partition read again drops what it took of the old reading.</param>
    /// <param name="tracing">Spans.</param>
    public BatchProcessing(
        RecordConclusion<TKey, TValue> conclusion,
        BatchRunner<TKey, TValue> runner,
        BatchCollector<TKey, TValue> collector,
        ConsumerTracing tracing)
    {
        _conclusion = conclusion;
        _runner = runner;
        _collector = collector;
        _tracing = tracing;
    }

    /// <summary>A worker (or the loop) runs the batch handler, with the batch's span current for the handler only.</summary>
    public ValueTask<HandlerResult> HandleAsync(RecordBatch<TKey, TValue> batch)
    {
        Activity? activity = batch.Activity = _tracing.StartBatch(batch);
        try
        {
            return _runner.RunAsync(batch, activity);
        }
        finally
        {
            Spans.Leave(activity);
        }
    }

    /// <summary>
    /// Concludes a batch (or a poison record in its place) its handler is done with (loop thread, in its partition's
    /// order).
    /// </summary>
    public AfterConclusion Conclude(RecordBatch<TKey, TValue> batch)
    {
        AfterConclusion after = batch.Poison is { } poison
            ? _conclusion.DeadLetterPoison(poison)
            : Spans.In(
                batch.Activity,
                (Conclusion: _conclusion, Batch: batch),
                static (state, activity) => state.Conclusion.Conclude(state.Batch, activity));
        if (after == AfterConclusion.ReadAgain)
        {
            // Read again from the record whose dead letter failed (a poison record's, or one of the batch's): what the
            // collector took of its partition since then belongs to the old reading and must not reach the handler.
            _collector.Discard(batch.Position.TopicPartition);
        }

        return after;
    }
}
