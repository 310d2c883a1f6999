using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics.Metrics;
using System.Linq;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Hosting.Diagnostics;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.Hosting.Service;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tests.Support;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Vectors.Telemetry.V1;
using Xunit;
using static KafkaProtobuf.Tests.EndToEnd.DeviceRecords;

namespace KafkaProtobuf.Tests.Hosting;

/// <summary>
/// Batch handlers on the embedded cluster: batches of one partition in its order (several partitions' at once) or across
/// partitions; a partial batch handed over when its wait runs out; a failed batch retried, then split (only the bad record
/// dead-lettered) or dead-lettered whole; poison records cutting batches and dead-lettered in order; a revoked partition's
/// batch dropped, not committed; shutdown with a batch in hand; the batch metrics. Nothing asserts on time.
/// </summary>
public sealed class HostedConsumerBatchTests() : HostedConsumerTestBase("batches")
{
    private const string Name = "batches";

    private IHost Start(
        string topic,
        Func<IReadOnlyList<ConsumeResult<string, Device>>, CancellationToken, Task> handler,
        Action<KafkaProtobufConsumerOptions> configure,
        Action<IServiceCollection>? services = null,
        string name = Name) =>
        StartHost(name, topic, builder => builder.HandleBatch(handler), options =>
        {
            options.Batches.MaxWait = TimeSpan.FromMilliseconds(100);
            configure(options);
        }, services);

    /// <summary>A batch as the handler saw it: (partition, offset) of each record.</summary>
    private static (int Partition, long Offset)[] Seen(IReadOnlyList<ConsumeResult<string, Device>> batch) =>
        [.. batch.Select(r => (r.Partition.Value, r.Offset.Value))];

    private static IEnumerable<long> Offsets(int from, int to, params long[] except) => Enumerable.Range(from, to - from).Select(o => (long)o).Except(except);

    [Fact]
    public async Task EachBatchIsOnePartitionsRecordsInOrder_SeveralPartitionsBatchesRunAtOnce_AndEverythingHandledIsCommitted()
    {
        const int Partitions = 3;
        const int PerPartition = 200; // two full batches a partition
        ProduceAcrossPartitions("bulk", Partitions, PerPartition);
        var batches = new ConcurrentQueue<(int Partition, long Offset)[]>();
        int inHandlers = 0;
        int mostAtOnce = 0;
        int arrived = 0;
        using var together = new ManualResetEventSlim();
        IHost host = Start("bulk", async (batch, token) =>
        {
            await Task.Yield(); // what comes before the first await runs on the loop thread
            int now = Interlocked.Increment(ref inHandlers);
            InterlockedMax(ref mostAtOnce, now);
            if (batch[0].Offset.Value == 0 && Interlocked.Increment(ref arrived) >= 2)
            {
                together.Set();
            }

            if (batch[0].Offset.Value == 0)
            {
                // The first batches of two partitions meet here: proof that batches of different partitions overlap.
                Assert.True(together.Wait(Deadline, token), "a second partition's batch never ran beside the first");
            }

            batches.Enqueue(Seen(batch));
            Interlocked.Decrement(ref inHandlers);
        }, options =>
        {
            options.MaxConcurrentHandlers = Partitions;
            options.Batches.MaxSize = 100;
            options.Batches.MaxWait = TimeSpan.FromMinutes(5); // batches go when full, never cut by a slow moment
        });

        Wait.Until(() => batches.Sum(b => b.Length) >= Partitions * PerPartition, "every record handled", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        Assert.InRange(mostAtOnce, 2, Partitions);
        Assert.All(batches, b =>
        {
            Assert.Equal(100, b.Length);
            Assert.Single(b.Select(r => r.Partition).Distinct());
        });
        for (int p = 0; p < Partitions; p++)
        {
            Assert.Equal(Offsets(0, PerPartition), batches.Where(b => b[0].Partition == p).SelectMany(b => b).Select(r => r.Offset));
        }

        Assert.Equal(Enumerable.Repeat((long)PerPartition, Partitions), Committed("bulk", Partitions));
    }

    [Fact]
    public async Task AQuietPartitionsRecords_AreHandedOverInAPartialBatch_WhenItsWaitRunsOut()
    {
        ProduceAcrossPartitions("quiet", 1, 7);
        var batches = new ConcurrentQueue<(int Partition, long Offset)[]>();
        IHost host = Start("quiet", (batch, _) =>
        {
            batches.Enqueue(Seen(batch));
            return Task.CompletedTask;
        }, options => options.Batches.MaxSize = 100);

        // Seven records and a batch of up to a hundred: without the wait they would be held for records that never come.
        Wait.Until(() => batches.Sum(b => b.Length) == 7, "the seven records handled", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        Assert.All(batches, b => Assert.InRange(b.Length, 1, 7));
        Assert.Equal(Offsets(0, 7), batches.SelectMany(b => b).Select(r => r.Offset));
        Assert.Equal([7L], Committed("quiet", 1));
    }

    [Theory]
    [InlineData(13L)]
    [InlineData(12L, 17L)] // two in the second batch
    public async Task AFailingBatch_IsRetriedAsABatch_ThenSplit_SoOnlyItsBadRecordsAreDeadLettered_EachWithItsOwnBytes_InOrder(params long[] bad)
    {
        string topic = "split-" + bad.Length;
        ProduceAcrossPartitions(topic, 1, 30);
        Cluster.CreateTopic(topic + ".dlq", 1);
        var handled = new ConcurrentQueue<long>();
        int batchAttempts = 0;
        var singleAttempts = new ConcurrentDictionary<long, int>();
        IHost host = Start(topic, (batch, _) =>
        {
            if (batch.Any(r => bad.Contains(r.Offset.Value)))
            {
                if (batch.Count > 1)
                {
                    Interlocked.Increment(ref batchAttempts);
                }
                else
                {
                    singleAttempts.AddOrUpdate(batch[0].Offset.Value, 1, (_, n) => n + 1);
                }

                throw new InvalidOperationException("a row of the batch violates a constraint");
            }

            foreach (ConsumeResult<string, Device> record in batch)
            {
                handled.Enqueue(record.Offset.Value);
            }

            return Task.CompletedTask;
        }, options =>
        {
            options.Batches.MaxSize = 10;
            options.Batches.MaxWait = TimeSpan.FromMinutes(5); // three full batches: the bad records' is never cut short by a slow moment
            options.HandlerFailures.MaxAttempts = 2;
        });

        Wait.Until(() => handled.Count == 30 - bad.Length, "the good records handled", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        Assert.Equal(2, batchAttempts); // the batch's own attempts
        Assert.All(bad, offset => Assert.Equal(2, singleAttempts[offset])); // then, split, each bad record's
        Assert.Equal(Offsets(0, 30, bad), handled); // each good record once, in the partition's order
        List<ConsumeResult<byte[], byte[]>> letters = ReadDeadLetters(Cluster.CreateConsumerConfig(), topic + ".dlq", Deadline);
        Assert.Equal(bad, letters.Select(l => SourceOf(l.Message.Headers).Offset.Value));
        Assert.Equal(bad.Select(offset => GoodValue((int)offset)), letters.Select(l => l.Message.Value)); // its own bytes, not another record's of its batch
        Assert.Equal(bad.Select(offset => Encoding.UTF8.GetBytes("k" + offset)), letters.Select(l => l.Message.Key));
        Assert.All(letters, l => Assert.Equal("handler", Encoding.UTF8.GetString(l.Message.Headers.GetLastBytes(DeadLetterHeaderNames.Component))));
        Assert.Equal([30L], Committed(topic, 1));
    }

    [Fact]
    public async Task AFailingBatch_WhoseFailureIsTheWholeBatchs_IsDeadLetteredRecordByRecord_InOrder()
    {
        ProduceAcrossPartitions("whole", 1, 30);
        Cluster.CreateTopic("whole.dlq", 1);
        var handled = new ConcurrentQueue<long>();
        var failedBatch = new ConcurrentQueue<long>();
        IHost host = Start("whole", (batch, _) =>
        {
            if (batch.Any(r => r.Offset.Value == 13))
            {
                foreach (ConsumeResult<string, Device> record in batch)
                {
                    failedBatch.Enqueue(record.Offset.Value);
                }

                throw new TimeoutException("the warehouse did not answer");
            }

            foreach (ConsumeResult<string, Device> record in batch)
            {
                handled.Enqueue(record.Offset.Value);
            }

            return Task.CompletedTask;
        }, options =>
        {
            options.Batches.MaxSize = 10;
            options.Batches.MaxWait = TimeSpan.FromMinutes(5); // three full batches, whatever the machine's speed
            options.Batches.WhenBatchFails = FailedBatchAction.WholeBatch;
            options.HandlerFailures.MaxAttempts = 1;
        });

        Wait.Until(() => handled.Count + failedBatch.Count == 30, "every record handled or failed", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        List<ConsumeResult<byte[], byte[]>> letters = ReadDeadLetters(Cluster.CreateConsumerConfig(), "whole.dlq", Deadline);
        Assert.Equal(Offsets(10, 20), failedBatch);
        Assert.Equal(failedBatch, letters.Select(l => SourceOf(l.Message.Headers).Offset.Value));
        Assert.All(letters, l => Assert.Equal(GoodValue((int)SourceOf(l.Message.Headers).Offset.Value), l.Message.Value));
        Assert.All(letters, l => Assert.Equal(typeof(TimeoutException).FullName, Encoding.UTF8.GetString(l.Message.Headers.GetLastBytes(DeadLetterHeaderNames.ErrorCode))));
        Assert.Equal(Offsets(0, 30).Except(failedBatch), handled.Order());
        Assert.Equal([30L], Committed("whole", 1));
    }

    [Fact]
    public async Task PoisonRecords_NeverReachTheBatchHandler_CutTheirBatchesThere_AndAreDeadLetteredInOrder()
    {
        ProduceAcrossPartitions("cut", 1, 20, (0, 5), (0, 12));
        Cluster.CreateTopic("cut.dlq", 1);
        var batches = new ConcurrentQueue<(int Partition, long Offset)[]>();
        IHost host = Start("cut", (batch, _) =>
        {
            batches.Enqueue(Seen(batch));
            return Task.CompletedTask;
        }, options => options.Batches.MaxSize = 100);

        Wait.Until(() => batches.Sum(b => b.Length) == 18, "the 18 good records handled", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        Assert.Equal(Offsets(0, 20, 5, 12), batches.SelectMany(b => b).Select(r => r.Offset));
        Assert.All(batches, b => Assert.DoesNotContain(b, r => r.Offset is 5 or 12));
        Assert.DoesNotContain(batches, b => b[0].Offset < 5 && b[^1].Offset > 5);
        Assert.DoesNotContain(batches, b => b[0].Offset < 12 && b[^1].Offset > 12);
        List<ConsumeResult<byte[], byte[]>> letters = ReadDeadLetters(Cluster.CreateConsumerConfig(), "cut.dlq", Deadline);
        Assert.Equal([5L, 12L], letters.Select(l => SourceOf(l.Message.Headers).Offset.Value));
        Assert.Equal([20L], Committed("cut", 1));
    }

    [Fact]
    public async Task APoisonRecordWhoseDeadLetterFails_DropsWhatWasCollectedAfterIt_SoTheHandlerNeverSeesItsPartitionOutOfOrder()
    {
        // Poison at 5; the batch before it is held in its handler until the loop has collected records after the poison
        // (an open batch from 6, which no size or wait hands over meanwhile). Then the poison's dead letter fails once,
        // retriably: the partition is read again from 5, and nothing collected before that may be handed over (it was,
        // when the poison record came again and cut the open batch: 6 and on twice, the first time too early).
        ProduceAcrossPartitions("cut-again", 1, 30, (0, 5));
        Cluster.CreateTopic("cut-again.dlq", 1);
        var seen = new ConcurrentQueue<long>();
        using var probe = new RevokeProbe(Name, Group, new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously));
        bool? poisonWrittenBeforeSix = null;
        IHost host = Start("cut-again", async (batch, token) =>
        {
            await Task.Yield();
            if (batch[0].Offset.Value == 0 && seen.IsEmpty)
            {
                Wait.Until(() => probe.HighestDelivered >= 18, "the loop to collect records past the poison", Deadline);
                Cluster.FailNextRequests(KafkaApi.Produce, ErrorCode.NotEnoughReplicas, 1); // the poison's dead letter, next
            }

            if (batch.Any(r => r.Offset.Value == 6))
            {
                poisonWrittenBeforeSix ??= probe.DeadLetteredAt.Contains(5);
            }

            foreach (ConsumeResult<string, Device> record in batch)
            {
                seen.Enqueue(record.Offset.Value);
            }
        }, options =>
        {
            options.MaxConcurrentHandlers = 2;
            options.Batches.MaxSize = 100;
            options.Batches.MaxWait = TimeSpan.FromSeconds(3); // far longer than a dead letter's failure takes
            options.CopyProducer!.EnableIdempotence = false; // so that a failed produce is not retried inside the producer
            options.CopyProducer.MessageSendMaxRetries = 0;
        });

        Wait.Until(() => Committed("cut-again", 1).SequenceEqual([30L]) && seen.Contains(29), "the partition handled and committed to its end", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        Assert.Contains(probe.MovedBackTo, p => p == 5); // the dead letter did fail, and the partition went back to it
        Assert.True(poisonWrittenBeforeSix, "records after the poison reached the handler before its dead letter was written");
        Assert.Equal(Offsets(0, 30, 5), seen); // each record once, in the partition's order
        Assert.Equal([5L], ReadDeadLetters(Cluster.CreateConsumerConfig(), "cut-again.dlq", Deadline).Select(l => SourceOf(l.Message.Headers).Offset.Value));
    }

    [Fact]
    public async Task BatchesAcrossPartitions_HoldSeveralPartitionsRecords_EachPartitionStillInOrder()
    {
        ProduceAcrossPartitions("across", 3, 60);
        var batches = new ConcurrentQueue<(int Partition, long Offset)[]>();
        IHost host = Start("across", (batch, _) =>
        {
            batches.Enqueue(Seen(batch));
            return Task.CompletedTask;
        }, options =>
        {
            // Four full batches of 45, never cut by a slow moment: as 60 is no multiple of 45, some batch must hold two
            // partitions' records, whatever order the partitions' records come in.
            options.Batches.MaxSize = 45;
            options.Batches.MaxWait = TimeSpan.FromMinutes(5);
            options.Batches.AcrossPartitions = true;
        });

        Wait.Until(() => batches.Sum(b => b.Length) == 180, "every record handled", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        Assert.Contains(batches, b => b.Select(r => r.Partition).Distinct().Count() > 1);
        Assert.All(batches, b => Assert.Equal(45, b.Length));
        for (int p = 0; p < 3; p++)
        {
            Assert.Equal(Offsets(0, 60), batches.SelectMany(b => b).Where(r => r.Partition == p).Select(r => r.Offset));
        }

        Assert.Equal([60L, 60L, 60L], Committed("across", 3));
    }

    [Fact]
    public async Task ARevokedPartitionsBatch_StillInItsHandlerAfterRevokeTimeout_IsDropped_NotCommitted_AndReadAgain()
    {
        ProduceAcrossPartitions("rebalanced", 2, 20);
        var handled = new ConcurrentQueue<(string Member, int Partition, long Offset)>();
        var revoked = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        using var held = new ManualResetEventSlim();
        int holding = 0;
        Func<IReadOnlyList<ConsumeResult<string, Device>>, CancellationToken, Task> Member(string name) => async (batch, token) =>
        {
            await Task.Yield();
            if (name == "first" && batch[0].Partition.Value == 0 && batch[0].Offset.Value == 0 && Interlocked.Exchange(ref holding, 1) == 0)
            {
                // Held until the rebalance has let the partition go: its revoke waited RevokeTimeout for this batch, then dropped it.
                held.Set();
                await revoked.Task.WaitAsync(Deadline, token);
            }

            foreach (ConsumeResult<string, Device> record in batch)
            {
                handled.Enqueue((name, record.Partition.Value, record.Offset.Value));
            }
        };

        void Options(KafkaProtobufConsumerOptions options)
        {
            options.MaxConcurrentHandlers = 2;
            options.Batches.MaxSize = 10;
            options.RevokeTimeout = TimeSpan.FromMilliseconds(200);
        }

        using var firstEvents = new RevokeProbe("first", Group, revoked);
        IHost first = Start("rebalanced", Member("first"), Options, name: "first");
        Assert.True(held.Wait(Deadline), "the first member never took partition 0's first batch");
        IHost second = Start("rebalanced", Member("second"), Options, name: "second");

        Wait.Until(() => Committed("rebalanced", 2).SequenceEqual([20L, 20L]), "both partitions committed to their end", Deadline);
        await first.StopAsync().WaitAsync(Deadline);
        await second.StopAsync().WaitAsync(Deadline);

        // The held batch completed in its handler after the partition was let go: it was not committed, so its records were read again.
        Assert.All(Offsets(0, 10), offset => Assert.True(handled.Count(h => h.Partition == 0 && h.Offset == offset) >= 2, $"partition 0 @{offset} was handled once: its dropped batch was committed"));
        Assert.All(Offsets(0, 20), offset => Assert.Contains(handled, h => h.Partition == 1 && h.Offset == offset));
    }

    [Fact]
    public async Task ARebalance_DropsWhatBatchesWereStillCollecting_SoNoRecordIsHandledTwice()
    {
        ProduceAcrossPartitions("collecting", 2, 10);
        var handled = new ConcurrentQueue<(int Partition, long Offset)>();
        Task Handler(IReadOnlyList<ConsumeResult<string, Device>> batch, CancellationToken token)
        {
            foreach (ConsumeResult<string, Device> record in batch)
            {
                handled.Enqueue((record.Partition.Value, record.Offset.Value));
            }

            return Task.CompletedTask;
        }

        void Options(KafkaProtobufConsumerOptions options)
        {
            options.Batches.MaxSize = 20; // each partition's ten records wait in an open batch ...
            options.Batches.MaxWait = TimeSpan.FromMinutes(5); // ... for as long as the test runs
        }

        using var first = new RevokeProbe("first", Group, new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously));
        Start("collecting", Handler, Options, name: "first");
        Wait.Until(() => first.Deliveries >= 20, "the first member to collect both partitions' records", Deadline);
        using var second = new RevokeProbe("second", Group, new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously));
        Start("collecting", Handler, Options, name: "second");
        Wait.Until(() => first.Owned == 1 && second.Owned == 1, "the rebalance to share the partitions", Deadline);

        // Ten more records a partition fill each owner's batch: from the committed offset (none), so 0..19.
        ProduceMore("collecting", 2, 10, 10);
        Wait.Until(() => handled.Count >= 40, "every record handled", Deadline);

        // An open batch kept over the rebalance would have taken the partition's first ten records twice.
        Assert.Equal(40, handled.Count);
        Assert.Equal(40, handled.Distinct().Count());
        Assert.Equal(Enumerable.Range(0, 2).SelectMany(p => Offsets(0, 20).Select(o => (p, o))), handled.OrderBy(h => h.Partition).ThenBy(h => h.Offset));
    }

    [Fact]
    public async Task Shutdown_LetsTheBatchInHandFinish_CommitsIt_AndStartsNoOtherBatch()
    {
        ProduceAcrossPartitions("draining", 1, 30);
        var handled = new ConcurrentQueue<long>();
        using var stopping = new StoppingSeen(Name, Group);
        using var inHand = new ManualResetEventSlim();
        IHost host = Start("draining", async (batch, token) =>
        {
            await Task.Yield();
            inHand.Set();
            Wait.Until(() => stopping.Seen, "shutdown to begin", Deadline); // the batch finishes only once nothing new may start
            foreach (ConsumeResult<string, Device> record in batch)
            {
                handled.Enqueue(record.Offset.Value);
            }
        }, options => options.Batches.MaxSize = 10);

        Assert.True(inHand.Wait(Deadline), "no batch reached the handler");
        await host.StopAsync().WaitAsync(Deadline);

        long[] first = [.. handled];
        Assert.InRange(first.Length, 1, 10);
        Assert.Equal(Offsets(0, first.Length), first);
        Assert.Equal([(long)first.Length], Committed("draining", 1));
    }

    [Fact]
    public async Task ABatchStillInItsHandlerWhenTheShutdownTimeoutRunsOut_IsCancelled_AndNotCommitted()
    {
        ProduceAcrossPartitions("stuck", 1, 30);
        var handled = new ConcurrentQueue<long>();
        using var stuck = new ManualResetEventSlim();
        bool cancelled = false;
        IHost host = Start("stuck", async (batch, token) =>
        {
            if (batch[0].Offset.Value >= 10)
            {
                stuck.Set();
                try
                {
                    await Task.Delay(Timeout.Infinite, token);
                }
                catch (OperationCanceledException)
                {
                    cancelled = true;
                    throw;
                }
            }

            foreach (ConsumeResult<string, Device> record in batch)
            {
                handled.Enqueue(record.Offset.Value);
            }
        }, options => options.Batches.MaxSize = 10, services => services.Configure<HostOptions>(o => o.ShutdownTimeout = TimeSpan.FromMilliseconds(500)));

        Assert.True(stuck.Wait(Deadline), "the handler to reach the second batch");
        await host.StopAsync().WaitAsync(Deadline);

        Assert.True(cancelled);
        Assert.Equal(Offsets(0, 10), handled);
        Assert.Equal([10L], Committed("stuck", 1));
    }

    [Fact]
    public async Task Metrics_RecordEachBatchsSize_CountBatchesHandled_AndTheirRecords()
    {
        ProduceAcrossPartitions("metered-batches", 1, 25);
        var measurements = new ConcurrentQueue<(string Instrument, double Value)>();
        using var listener = new MeterListener
        {
            InstrumentPublished = (instrument, l) =>
            {
                if (instrument.Meter.Name == KafkaProtobuf.Diagnostics.KafkaProtobufMetrics.MeterName && instrument.Name.StartsWith("kafkaprotobuf.consumer.", StringComparison.Ordinal))
                {
                    l.EnableMeasurementEvents(instrument);
                }
            },
        };
        listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) => Add(instrument, value, tags));
        listener.SetMeasurementEventCallback<int>((instrument, value, tags, _) => Add(instrument, value, tags));
        listener.Start();

        var sizes = new ConcurrentQueue<int>();
        IHost host = Start("metered-batches", (batch, _) =>
        {
            sizes.Enqueue(batch.Count);
            return Task.CompletedTask;
        }, options => options.Batches.MaxSize = 10);

        Wait.Until(() => Sum(KafkaProtobufConsumerMetrics.RecordsHandled) == 25, "25 records counted as handled", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        Assert.Equal(sizes.Order(), Of(KafkaProtobufConsumerMetrics.BatchSize).Select(v => (int)v).Order());
        Assert.Equal(sizes.Count, Sum(KafkaProtobufConsumerMetrics.BatchesHandled));
        Assert.Equal(25, sizes.Sum());

        void Add(Instrument instrument, double value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
        {
            foreach (KeyValuePair<string, object?> tag in tags)
            {
                if (tag.Key == KafkaProtobufConsumerMetrics.ConsumerTag && Equals(tag.Value, "batches"))
                {
                    measurements.Enqueue((instrument.Name, value));
                }
            }
        }

        IEnumerable<double> Of(string instrument) => measurements.Where(m => m.Instrument == instrument).Select(m => m.Value);

        double Sum(string instrument) => Of(instrument).Sum();
    }

    private static void InterlockedMax(ref int target, int value)
    {
        int seen;
        while ((seen = Volatile.Read(ref target)) < value && Interlocked.CompareExchange(ref target, value, seen) != seen)
        {
        }
    }

    /// <summary>Completes when the consumer has let partitions go (after its revoke waited for their handlers); counts the partitions it owns and its deliveries.</summary>
    private sealed class RevokeProbe(string consumer, string group, TaskCompletionSource revoked) : ConsumerEvents(consumer, group)
    {
        private int _owned;
        private int _deliveries;
        private long _highestDelivered = -1;

        public int Owned => Volatile.Read(ref _owned);

        public int Deliveries => Volatile.Read(ref _deliveries);

        public long HighestDelivered => Interlocked.Read(ref _highestDelivered);

        public ConcurrentQueue<long> MovedBackTo { get; } = new();

        public ConcurrentQueue<long> DeadLetteredAt { get; } = new();

        public override void Revoked(IReadOnlyList<TopicPartition> partitions, bool lost)
        {
            Interlocked.Add(ref _owned, -partitions.Count);
            revoked.TrySetResult();
        }

        public override void Assigned(IReadOnlyList<TopicPartition> partitions) => Interlocked.Add(ref _owned, partitions.Count);

        public override void Delivered(TopicPartitionOffset record)
        {
            Interlocked.Increment(ref _deliveries);
            long seen;
            while ((seen = Interlocked.Read(ref _highestDelivered)) < record.Offset.Value && Interlocked.CompareExchange(ref _highestDelivered, record.Offset.Value, seen) != seen)
            {
            }
        }

        public override void DeadLettered(TopicPartitionOffset record) => DeadLetteredAt.Enqueue(record.Offset.Value);

        public override void MovedBack(TopicPartitionOffset record, bool schemaUnavailable) => MovedBackTo.Enqueue(record.Offset.Value);
    }
}
