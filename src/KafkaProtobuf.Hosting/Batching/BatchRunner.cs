using System.Collections.Generic;
using System.Diagnostics;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Diagnostics;
using KafkaProtobuf.Hosting.Handling;

namespace KafkaProtobuf.Hosting.Batching;

/// <summary>
/// Runs a batch handler on a batch, with the retries of <see cref="HandlerRunner{TWork}"/>; a batch that failed for
/// good is split, when <see cref="BatchOptions.WhenBatchFails"/> says so, into batches of one record, each run with
/// the same retries, so that only the records that still fail are dead-lettered. Safe on any thread.
/// </summary>
internal sealed class BatchRunner<TKey, TValue>
{
    private readonly HandlerRunner<IReadOnlyList<ConsumeResult<TKey, TValue>>> _runner;
    private readonly FailedBatchAction _whenAttemptsRunOut;
    private readonly HandlerEvents _events;

    public BatchRunner(
        HandlerRunner<IReadOnlyList<ConsumeResult<TKey, TValue>>> runner, FailedBatchAction whenAttemptsRunOut, HandlerEvents events)
    {
        _runner = runner;
        _whenAttemptsRunOut = whenAttemptsRunOut;
        _events = events;
    }

    /// <summary>The partition a batch comes from; null for a batch across partitions.</summary>
    public static TopicPartition? PartitionOf(IReadOnlyList<ConsumeResult<TKey, TValue>> records)
    {
        TopicPartition? first = records.Count > 0 ? records[0].TopicPartition : null;
        for (int i = 1; i < records.Count && first is not null; i++)
        {
            if (records[i].Partition != first.Partition || records[i].Topic != first.Topic)
            {
                return null;
            }
        }

        return first;
    }

    /// <summary>What a batch is, in log lines: its place, or its first record's and how many follow.</summary>
    public static string Describe(IReadOnlyList<ConsumeResult<TKey, TValue>> records)
    {
        if (records is RecordBatch<TKey, TValue> batch)
        {
            return batch.Describe();
        }

        string first = PositionText.Of(records[0].Topic, records[0].Partition, records[0].Offset);
        return records.Count > 1
            ? first + " and the " + (records.Count - 1).ToString(System.Globalization.CultureInfo.InvariantCulture) + " records after it"
            : first;
    }

    /// <summary>
    /// Runs the handler on the batch until it completes or fails for good (then split, if so configured); the records'
    /// own results, if split, in <see cref="RecordBatch{TKey, TValue}.RecordResults"/>.
    /// </summary>
    public ValueTask<HandlerResult> RunAsync(RecordBatch<TKey, TValue> batch, Activity? activity)
    {
        _events.BatchStarting(batch.Count);
        ValueTask<HandlerResult> run = _runner.RunAsync(batch.ForHandler, activity);
        if (!run.IsCompletedSuccessfully)
        {
            return AwaitAsync(batch, activity, run);
        }

        HandlerResult result = run.Result;
        return NeedsSplit(batch, result) ? SplitAsync(batch, activity, result) : new ValueTask<HandlerResult>(Finished(result));
    }

    private async ValueTask<HandlerResult> AwaitAsync(RecordBatch<TKey, TValue> batch, Activity? activity, ValueTask<HandlerResult> run)
    {
        HandlerResult result = await run.ConfigureAwait(false);
        return NeedsSplit(batch, result) ? await SplitAsync(batch, activity, result).ConfigureAwait(false) : Finished(result);
    }

    private bool NeedsSplit(RecordBatch<TKey, TValue> batch, HandlerResult result) =>
        result.Outcome == HandlerOutcome.DeadLetter && _whenAttemptsRunOut == FailedBatchAction.Split && batch.Count > 1;

    private HandlerResult Finished(HandlerResult result)
    {
        if (result.Outcome == HandlerOutcome.Handled)
        {
            _events.BatchHandled();
        }

        return result;
    }

    /// <summary>
    /// Each record alone, in order. The batch's result then says whether any needs the loop: cancelled (shutdown: nothing
    /// of the batch is stored), or failed (the conclusion goes record by record); a record that stops the consumer ends
    /// the split, and the records after it are left as cancelled (never concluded).
    /// </summary>
    private async ValueTask<HandlerResult> SplitAsync(RecordBatch<TKey, TValue> batch, Activity? activity, HandlerResult failed)
    {
        _events.BatchSplit(activity, batch.Describe(), batch.Count, failed.Failure!);
        var results = new HandlerResult[batch.Count];
        HandlerResult overall = default;
        bool ended = false;
        for (int i = 0; i < batch.Count; i++)
        {
            if (ended)
            {
                results[i] = new HandlerResult(HandlerOutcome.Cancelled, failed.Failure);
                continue;
            }

            HandlerResult one = results[i] = await _runner.RunAsync([batch.ForHandler[i]], activity).ConfigureAwait(false);
            if (one.Outcome == HandlerOutcome.Cancelled)
            {
                overall = one;
                ended = true;
            }
            else if (one.Outcome != HandlerOutcome.Handled)
            {
                overall = overall.Outcome == HandlerOutcome.Handled ? new HandlerResult(HandlerOutcome.DeadLetter, one.Failure) : overall;
                ended = one.Outcome == HandlerOutcome.Stop;
            }
        }

        batch.RecordResults = results;
        return overall;
    }
}
