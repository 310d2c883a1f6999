using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.Hosting.Batching;
using KafkaProtobuf.Hosting.Diagnostics;
using KafkaProtobuf.Hosting.Handling;
using KafkaProtobuf.Hosting.Health;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging.Abstractions;
using Xunit;

namespace KafkaProtobuf.Tests.Hosting.Batching;

/// <summary>
/// A batch handler's runs without a broker: a batch that fails for good split into batches of one so that only its bad
/// records fail, a record that stops the consumer or a shutdown ending the split, and no split when it cannot help or was
/// not asked for. The handler fails by the record's value: <c>bad</c> always, <c>stop</c> as the consumer-stopping kind,
/// <c>together</c> only in a batch, <c>shutdown</c> in a batch and, alone, by meeting the host's shutdown.
/// </summary>
public sealed class BatchRunnerTests : IDisposable
{
    private readonly List<long[]> _calls = [];
    private readonly CancellationTokenSource _abort = new();
    private readonly ServiceProvider _services = new ServiceCollection().BuildServiceProvider();

    public void Dispose()
    {
        _abort.Dispose();
        _services.Dispose();
    }

    private sealed class StopTheConsumer : Exception;

    private BatchRunner<string, string> Runner(FailedBatchAction whenBatchFails = FailedBatchAction.Split)
    {
        var failures = new HandlerFailureOptions
        {
            MaxAttempts = 1,
            Classify = e => e is StopTheConsumer ? HandlerFailureAction.StopConsumer : null,
        };
        var events = new HandlerEvents("batches", NullLogger.Instance);
        var handler = new HandlerRunner<IReadOnlyList<ConsumeResult<string, string>>>(
            Handle, needsScope: false, _services, BatchRunner<string, string>.Describe, records => records.Count, BatchRunner<string, string>.PartitionOf,
            failures, new ConsumerStatus("batches"), events, CancellationToken.None, _abort.Token);
        return new BatchRunner<string, string>(handler, whenBatchFails, events);
    }

    private Task Handle(IServiceProvider services, IReadOnlyList<ConsumeResult<string, string>> records, CancellationToken abort)
    {
        lock (_calls)
        {
            _calls.Add([.. records.Select(r => r.Offset.Value)]);
        }

        foreach (ConsumeResult<string, string> record in records)
        {
            switch (record.Message.Value)
            {
                case "bad":
                    throw new InvalidOperationException("bad record at " + record.Offset.Value);
                case "stop":
                    throw new StopTheConsumer();
                case "shutdown" when records.Count == 1:
                    _abort.Cancel();
                    throw new OperationCanceledException(abort);
                case "shutdown":
                case "together" when records.Count > 1:
                    throw new InvalidOperationException("fails in a batch, not alone");
            }
        }

        return Task.CompletedTask;
    }

    private static RecordBatch<string, string> Batch(params string[] values) => Batch(0, values);

    private static RecordBatch<string, string> Batch(int partition, params string[] values)
    {
        var batch = new RecordBatch<string, string>(values.Length);
        for (int i = 0; i < values.Length; i++)
        {
            var record = new ConsumeResult<string, string>
            {
                TopicPartitionOffset = new TopicPartitionOffset("orders", partition, 100 + i),
                Message = new Message<string, string> { Key = "k", Value = values[i] },
            };
            batch.Add(record, record, "k"u8, false, System.Text.Encoding.UTF8.GetBytes(values[i]), false);
        }

        return batch;
    }

    private static HandlerOutcome[] Outcomes(RecordBatch<string, string> batch) => [.. Enumerable.Range(0, batch.Count).Select(i => batch.ResultOf(i).Outcome)];

    [Fact]
    public async Task ABatchThatSucceeds_IsHandled_InOneRun_WithNoRecordResults()
    {
        RecordBatch<string, string> batch = Batch("a", "b", "c");

        HandlerResult result = await Runner().RunAsync(batch, null);

        Assert.Equal(HandlerOutcome.Handled, result.Outcome);
        Assert.Null(batch.RecordResults);
        Assert.Equal([[100L, 101, 102]], _calls);
    }

    [Fact]
    public async Task ABatchThatFailsForGood_IsSplit_AndOnlyItsBadRecordsFail()
    {
        RecordBatch<string, string> batch = Batch("a", "bad", "c", "bad", "e");

        HandlerResult result = await Runner().RunAsync(batch, null);

        Assert.Equal(HandlerOutcome.DeadLetter, result.Outcome);
        Assert.Equal([HandlerOutcome.Handled, HandlerOutcome.DeadLetter, HandlerOutcome.Handled, HandlerOutcome.DeadLetter, HandlerOutcome.Handled], Outcomes(batch));
        Assert.Contains("101", batch.ResultOf(1).Failure!.Message, StringComparison.Ordinal); // each record's own failure
        Assert.Contains("103", batch.ResultOf(3).Failure!.Message, StringComparison.Ordinal);
        Assert.Equal([[100L, 101, 102, 103, 104], [100], [101], [102], [103], [104]], _calls); // each record alone, in order
    }

    [Fact]
    public async Task ABatchThatFailsOnlyAsAWhole_IsSplit_AndEveryRecordIsHandledAlone()
    {
        RecordBatch<string, string> batch = Batch("a", "together", "c");

        HandlerResult result = await Runner().RunAsync(batch, null);

        Assert.Equal(HandlerOutcome.Handled, result.Outcome);
        Assert.All(Outcomes(batch), outcome => Assert.Equal(HandlerOutcome.Handled, outcome));
        Assert.Equal([[100L, 101, 102], [100], [101], [102]], _calls);
    }

    [Fact]
    public async Task ARecordThatStopsTheConsumer_EndsTheSplit_AndTheRecordsAfterItAreNeverRun()
    {
        RecordBatch<string, string> batch = Batch("a", "bad", "stop", "d", "e");

        HandlerResult result = await Runner().RunAsync(batch, null);

        Assert.NotEqual(HandlerOutcome.Handled, result.Outcome); // the conclusion then goes record by record
        Assert.Equal([HandlerOutcome.Handled, HandlerOutcome.DeadLetter, HandlerOutcome.Stop, HandlerOutcome.Cancelled, HandlerOutcome.Cancelled], Outcomes(batch));
        Assert.Equal([[100L, 101, 102, 103, 104], [100], [101], [102]], _calls);
    }

    [Fact]
    public async Task AShutdownDuringTheSplit_CancelsTheBatch_AndTheRecordsAfterIt()
    {
        RecordBatch<string, string> batch = Batch("a", "shutdown", "c");

        HandlerResult result = await Runner().RunAsync(batch, null);

        Assert.Equal(HandlerOutcome.Cancelled, result.Outcome); // nothing of the batch is stored: read again after the restart
        Assert.Equal([HandlerOutcome.Handled, HandlerOutcome.Cancelled, HandlerOutcome.Cancelled], Outcomes(batch));
        Assert.Equal([[100L, 101, 102], [100], [101]], _calls);
    }

    [Fact]
    public async Task AsAWholeBatch_AFailedBatchIsNotSplit_EveryRecordGoesWithIt()
    {
        RecordBatch<string, string> batch = Batch("a", "bad", "c");

        HandlerResult result = await Runner(FailedBatchAction.WholeBatch).RunAsync(batch, null);

        Assert.Equal(HandlerOutcome.DeadLetter, result.Outcome);
        Assert.Null(batch.RecordResults); // the batch's one result stands for every record
        Assert.Single(_calls);
    }

    [Fact]
    public async Task ABatchOfOne_IsNotSplit_ItIsAlreadyAlone()
    {
        RecordBatch<string, string> batch = Batch("bad");

        HandlerResult result = await Runner().RunAsync(batch, null);

        Assert.Equal(HandlerOutcome.DeadLetter, result.Outcome);
        Assert.Null(batch.RecordResults);
        Assert.Single(_calls);
    }

    [Fact]
    public async Task AStopForTheWholeBatch_IsNotSplit()
    {
        // Split helps only records that would be dead-lettered; a batch whose failure stops the consumer stops it.
        RecordBatch<string, string> batch = Batch("a", "stop");

        HandlerResult result = await Runner().RunAsync(batch, null);

        Assert.Equal(HandlerOutcome.Stop, result.Outcome);
        Assert.Single(_calls);
    }

    [Fact]
    public void PartitionOf_IsTheBatchsPartition_OrNoneForSeveralOrNoRecords()
    {
        RecordBatch<string, string> across = Batch(0, "a");
        across.Add(Batch(1, "b")[0], Batch(1, "b")[0], "k"u8, false, "b"u8, false);

        Assert.Equal(new TopicPartition("orders", 0), BatchRunner<string, string>.PartitionOf(Batch("a", "b")));
        Assert.Null(BatchRunner<string, string>.PartitionOf(across));
        Assert.Null(BatchRunner<string, string>.PartitionOf([]));
    }

    [Fact]
    public void Describe_OfAPlainList_NamesItsFirstRecordAndHowManyFollow()
    {
        List<ConsumeResult<string, string>> records = [.. Batch("a", "b", "c")];

        Assert.Equal("orders [0] @100 and the 2 records after it", BatchRunner<string, string>.Describe(records));
        Assert.Equal("orders [0] @100", BatchRunner<string, string>.Describe(records.Take(1).ToList()));
        Assert.Equal("orders [0] @100..102 (3 records)", BatchRunner<string, string>.Describe(Batch("a", "b", "c")));
    }
}
