using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Hosting.Diagnostics;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.Hosting.Consuming;
using KafkaProtobuf.Hosting.Service;
using KafkaProtobuf.Tests.Support;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Vectors.Telemetry.V1;
using Xunit;
using static KafkaProtobuf.Tests.EndToEnd.DeviceRecords;

namespace KafkaProtobuf.Tests.Hosting;

/// <summary>
/// Partition-parallel mode (MaxConcurrentHandlers above 1) on the embedded cluster: records of different partitions in
/// their handlers at once, each partition's in order; offsets committed only for what was handled; what is taken
/// bounded by pausing fetching; poison records and failed handlers dead-lettered in order. Nothing asserts on time.
/// </summary>
public sealed class HostedConsumerParallelTests() : HostedConsumerTestBase("parallel")
{
    private const string Name = "parallel";

    private IHost Start(string topic, Func<ConsumeResult<string, Device>, CancellationToken, Task> handler, Action<KafkaProtobufConsumerOptions> configure) =>
        StartHost(Name, topic, handler, configure);

    [Fact]
    public async Task SixPartitions_HandledAtOnce_EachInOrder_UnderRandomDelays_AndEverythingHandledIsCommitted()
    {
        const int Partitions = 6;
        const int PerPartition = 150;
        ProduceAcrossPartitions("sensors", Partitions, PerPartition);
        var handled = new ConcurrentDictionary<int, ConcurrentQueue<long>>();
        int inHandlers = 0;
        int mostAtOnce = 0;
        int arrived = 0;
        using var together = new ManualResetEventSlim();
        IHost host = Start("sensors", async (record, token) =>
        {
            // What comes before a handler's first await runs on the consume loop's thread (that keeps quick handlers
            // as cheap as in sequential mode): blocking work goes after it.
            await Task.Yield();
            int now = Interlocked.Increment(ref inHandlers);
            InterlockedMax(ref mostAtOnce, now);
            if (record.Offset.Value == 0)
            {
                // The first records of two partitions meet here: proof that handlers overlap, whatever the machine's speed.
                if (Interlocked.Increment(ref arrived) >= 2)
                {
                    together.Set();
                }

                Assert.True(together.Wait(Deadline, token), "a second partition's handler never ran beside the first");
            }

            await Task.Delay(Random.Shared.Next(0, 3), token);
            handled.GetOrAdd(record.Partition.Value, _ => new ConcurrentQueue<long>()).Enqueue(record.Offset.Value);
            Interlocked.Decrement(ref inHandlers);
        }, options => options.MaxConcurrentHandlers = Partitions);

        Wait.Until(() => handled.Values.Sum(q => q.Count) == Partitions * PerPartition, "every record handled", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        Assert.InRange(mostAtOnce, 2, Partitions);
        Assert.All(Enumerable.Range(0, Partitions), p => Assert.Equal(Enumerable.Range(0, PerPartition).Select(o => (long)o), handled[p]));
        Assert.Equal(Enumerable.Repeat((long)PerPartition, Partitions), Committed("sensors", Partitions));
    }

    [Fact]
    public async Task ASlowHandler_KeepsWhatIsTakenWithinTheReadAheadBudget_ByPausingFetching_AndLosesNothing()
    {
        const int PerPartition = 80;
        ProduceAcrossPartitions("slow", 2, PerPartition);
        long largest = Enumerable.Range(0, PerPartition).SelectMany(o => new[] { o, 1000 + o }).Max(n => ReadAhead.Charge(("k" + (n % 1000)).Length + GoodValue(n).Length, 1));
        long budget = 10 * largest;
        var handled = new ConcurrentQueue<(int, long)>();
        using var readAhead = new ReadAheadCount(Name, Group);
        IHost host = Start("slow", async (record, token) =>
        {
            await Task.Delay(1, token);
            handled.Enqueue((record.Partition.Value, record.Offset.Value));
        }, options =>
        {
            options.MaxConcurrentHandlers = 2;
            options.MaxReadAheadBytes = budget;
        });

        Wait.Until(() => handled.Count == 2 * PerPartition, "every record handled", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        // librdkafka prefetched far more; past the budget, each partition took at most the record that paused it.
        Assert.InRange(readAhead.Most, budget - largest, budget + (2 * largest));
        Assert.Equal(2 * PerPartition, handled.Distinct().Count());
        Assert.All(handled.GroupBy(h => h.Item1), g => Assert.Equal(Enumerable.Range(0, PerPartition).Select(o => (long)o), g.Select(h => h.Item2)));
        Assert.Equal([PerPartition, PerPartition], Committed("slow", 2));
    }

    [Fact]
    public async Task PoisonAndAFailingHandler_AreDeadLetteredInTheirPartitionsOrder_WhileTheOtherPartitionFlows()
    {
        ProduceAcrossPartitions("mixed", 2, 20, (0, 3));
        Cluster.CreateTopic("mixed.dlq", 1);
        var handled = new ConcurrentDictionary<int, ConcurrentQueue<long>>();
        IHost host = Start("mixed", (record, _) =>
        {
            if (record.Partition.Value == 0 && record.Offset.Value == 7)
            {
                throw new InvalidOperationException("no such sensor");
            }

            handled.GetOrAdd(record.Partition.Value, _ => new ConcurrentQueue<long>()).Enqueue(record.Offset.Value);
            return Task.CompletedTask;
        }, options =>
        {
            options.MaxConcurrentHandlers = 2;
            options.HandlerFailures.MaxAttempts = 2;
        });

        Wait.Until(() => handled.Values.Sum(q => q.Count) == 38, "the 38 good records handled", Deadline);
        List<ConsumeResult<byte[], byte[]>> letters = ReadDeadLetters(Cluster.CreateConsumerConfig(), "mixed.dlq", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        Assert.Equal(Enumerable.Range(0, 20).Where(o => o is not (3 or 7)).Select(o => (long)o), handled[0]);
        Assert.Equal(Enumerable.Range(0, 20).Select(o => (long)o), handled[1]);
        Assert.Equal([3L, 7L], letters.Select(l => SourceOf(l.Message.Headers).Offset.Value));
        Assert.Equal(["value", "handler"], letters.Select(l => Encoding.UTF8.GetString(l.Message.Headers.GetLastBytes(DeadLetterHeaderNames.Component))));
        Assert.Equal(GoodValue(7), letters[1].Message.Value); // the failed record's own bytes, not those of a later record
        Assert.Equal([20L, 20L], Committed("mixed", 2));
    }

    [Fact]
    public async Task PerKey_OnePartitionsKeysHandledAtOnce_EachKeyInOrder_UnderRandomDelays_AndOffsetsStoredInThePartitionsOrder()
    {
        const int PerPartition = 200;
        ProduceAcrossPartitions("by-key", 2, PerPartition, offset => "k" + (offset % 10));
        var handled = new ConcurrentDictionary<(int Partition, string Key), ConcurrentQueue<long>>();
        var finished = new ConcurrentQueue<(int Partition, long Offset)>();
        using var probe = new StoreProbe(Name, Group);
        using var secondKeyStarted = new ManualResetEventSlim();
        IHost host = Start("by-key", async (record, token) =>
        {
            if (record.Partition.Value == 0 && record.Offset.Value == 1)
            {
                secondKeyStarted.Set();
            }

            if (record.Offset.Value % 2 == 1)
            {
                // Odd keys complete at once, on the loop thread, while even keys' records are still in their handlers.
                handled.GetOrAdd((record.Partition.Value, record.Message.Key), _ => new ConcurrentQueue<long>()).Enqueue(record.Offset.Value);
                finished.Enqueue((record.Partition.Value, record.Offset.Value));
                return;
            }

            await Task.Yield();

            if (record.Partition.Value == 0 && record.Offset.Value == 0)
            {
                // Key k0 waits for key k1's record of the same partition: proof that one partition's keys overlap.
                Assert.True(secondKeyStarted.Wait(Deadline, token), "the partition's second key never ran beside its first");
            }

            await Task.Delay(Random.Shared.Next(0, 3), token);
            handled.GetOrAdd((record.Partition.Value, record.Message.Key), _ => new ConcurrentQueue<long>()).Enqueue(record.Offset.Value);
            finished.Enqueue((record.Partition.Value, record.Offset.Value));
        }, options =>
        {
            options.MaxConcurrentHandlers = 4;
            options.HandlingOrder = HandlingOrder.Key;
        });

        Wait.Until(() => finished.Count == 2 * PerPartition, "every record handled", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        for (int p = 0; p < 2; p++)
        {
            for (int k = 0; k < 10; k++)
            {
                Assert.Equal(Enumerable.Range(0, PerPartition).Where(o => o % 10 == k).Select(o => (long)o), handled[(p, "k" + k)]);
            }

            // Handlers finished out of the partition's order (k0's first record waited for k1's), yet every offset
            // was stored in it: never past a record still in its handler.
            Assert.NotEqual(Enumerable.Range(0, PerPartition).Select(o => (long)o), finished.Where(f => f.Partition == p).Select(f => f.Offset).ToList());
            Assert.Equal(Enumerable.Range(0, PerPartition).Select(o => (long)o), probe.StoredOffsets(p));
        }

        Assert.Equal([PerPartition, PerPartition], Committed("by-key", 2));
    }

    [Fact]
    public async Task PerKey_AFailedRecordHoldsBackOnlyItsKey_IsDeadLetteredInOrder_AndNoOffsetIsStoredPastIt()
    {
        ProduceAcrossPartitions("key-failure", 1, 30, offset => "k" + (offset % 3), (0, 4));
        Cluster.CreateTopic("key-failure.dlq", 1);
        var handled = new ConcurrentQueue<(string Key, long Offset)>();
        using var probe = new StoreProbe(Name, Group);
        using var othersDone = new ManualResetEventSlim();
        IHost host = Start("key-failure", async (record, token) =>
        {
            await Task.Yield();
            if (record.Offset.Value == 2)
            {
                // k2's record fails only once k0 is through: its records after it finished first.
                Assert.True(othersDone.Wait(Deadline, token), "k0's records never got past k2's");
                throw new InvalidOperationException("no such sensor");
            }

            handled.Enqueue((record.Message.Key, record.Offset.Value));
            if (handled.Count(h => h.Key == "k0") == 10)
            {
                othersDone.Set(); // k1 waits too: its poison record (offset 4) is dead-lettered in the partition's order, after k2's
            }
        }, options =>
        {
            options.MaxConcurrentHandlers = 3;
            options.HandlingOrder = HandlingOrder.Key;
            options.HandlerFailures.MaxAttempts = 1;
        });

        Wait.Until(() => handled.Count == 28, "the 28 good records handled", Deadline);
        List<ConsumeResult<byte[], byte[]>> letters = ReadDeadLetters(Cluster.CreateConsumerConfig(), "key-failure.dlq", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        // k2's later records waited for its failed one, k1's for its poison record; k0 went past both.
        Assert.Equal(Enumerable.Range(0, 30).Where(o => o % 3 == 0).Append(1).Select(o => (long)o).Order(), handled.Take(11).Select(h => h.Offset).Order());
        Assert.Equal(Enumerable.Range(0, 30).Where(o => o % 3 == 2 && o != 2).Select(o => (long)o), handled.Where(h => h.Key == "k2").Select(h => h.Offset));
        Assert.Equal(Enumerable.Range(0, 30).Where(o => o % 3 == 1 && o != 4).Select(o => (long)o), handled.Where(h => h.Key == "k1").Select(h => h.Offset));
        Assert.Equal([2L, 4L], letters.Select(l => SourceOf(l.Message.Headers).Offset.Value));
        Assert.Equal(GoodValue(2), letters[0].Message.Value);
        Assert.Equal(Enumerable.Range(0, 30).Select(o => (long)o), probe.StoredOrDeadLettered(0));
        Assert.Equal([30L], Committed("key-failure", 1));
    }

    /// <summary>What the consumer stored and dead-lettered, in the order it did so.</summary>
    private sealed class StoreProbe(string consumer, string group) : ConsumerEvents(consumer, group)
    {
        private readonly ConcurrentQueue<(TopicPartitionOffset Record, bool DeadLettered)> _events = new();

        public List<long> StoredOffsets(int partition) => [.. _events.Where(e => !e.DeadLettered && e.Record.Partition.Value == partition).Select(e => e.Record.Offset.Value)];

        public List<long> StoredOrDeadLettered(int partition) => [.. _events.Where(e => e.Record.Partition.Value == partition).Select(e => e.Record.Offset.Value)];

        public override void Stored(TopicPartitionOffset record) => _events.Enqueue((record, false));

        public override void DeadLettered(TopicPartitionOffset record) => _events.Enqueue((record, true));
    }

    private static void InterlockedMax(ref int target, int value)
    {
        int seen;
        while ((seen = Volatile.Read(ref target)) < value && Interlocked.CompareExchange(ref target, value, seen) != seen)
        {
        }
    }
}
