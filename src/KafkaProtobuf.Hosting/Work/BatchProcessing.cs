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
/// dead-lettered in its turn. A batch to read again moves its partition back (the scheduler tells the loop, which drops
/// what it collected of the old reading).
/// </summary>
internal sealed class BatchProcessing<TKey, TValue>
{
    private readonly RecordConclusion<TKey, TValue> _conclusion;
    private readonly BatchRunner<TKey, TValue> _runner;
    private readonly ConsumerTracing _tracing;

    /// <param name="conclusion">Concludes a batch its handler is done with.</param>
    /// <param name="runner">The batch handler, with its retries and split.</param>
    /// <param name="tracing">Spans.</param>
    public BatchProcessing(
        RecordConclusion<TKey, TValue> conclusion,
        BatchRunner<TKey, TValue> runner,
        ConsumerTracing tracing)
    {
        _conclusion = conclusion;
        _runner = runner;
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
    public AfterConclusion Conclude(RecordBatch<TKey, TValue> batch) => batch.Poison is { } poison
        ? _conclusion.DeadLetterPoison(poison)
        : Spans.In(
            batch.Activity,
            (Conclusion: _conclusion, Batch: batch),
            static (state, activity) => state.Conclusion.Conclude(state.Batch, activity));
}
