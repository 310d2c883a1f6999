using System;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Text;
using Confluent.Kafka;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.Hosting.Batching;
using KafkaProtobuf.Hosting.Consuming;
using KafkaProtobuf.Tests.Hosting.Scheduling;
using Xunit;

namespace KafkaProtobuf.Tests.Hosting.Batching;

/// <summary>How batches fill, fall due, are cut and discarded: the loop thread's side of batch handlers, without a broker and with a clock the test moves.</summary>
public sealed class BatchCollectorTests
{
    private readonly SchedulerTime _clock = new();
    private readonly PausedPartitions _paused = new();

    private BatchCollector<string, string> Collector(int maxSize = 3, bool acrossPartitions = false, long readAhead = long.MaxValue) =>
        new(new BatchOptions { MaxSize = maxSize, MaxWait = TimeSpan.FromSeconds(1), AcrossPartitions = acrossPartitions }, Pausing = new PartitionPausing(_paused, readAhead, _clock));

    private PartitionPausing Pausing { get; set; } = null!;

    private static RecordBatch<string, string>? Add(BatchCollector<string, string> collector, int partition, long offset, string? key = null)
    {
        var record = new ConsumeResult<string, string>
        {
            TopicPartitionOffset = new TopicPartitionOffset("orders", partition, offset),
            Message = new Message<string, string> { Key = key!, Value = "v" + offset },
        };
        return collector.Add(record, Encoding.UTF8.GetBytes(key ?? string.Empty), key is null, Encoding.UTF8.GetBytes("v" + offset), false);
    }

    private static (string? Key, string? Value) Text((byte[]? Key, byte[]? Value) bytes) =>
        (bytes.Key is null ? null : Encoding.UTF8.GetString(bytes.Key), bytes.Value is null ? null : Encoding.UTF8.GetString(bytes.Value));

    private static long[] Offsets(RecordBatch<string, string> batch) => [.. batch.Select(r => r.Offset.Value)];

    /// <summary>What the collector still holds, as the loop finds it: every open batch once its wait runs out, oldest first ("partition@offset" each).</summary>
    private string[] LeftInOpenBatches(BatchCollector<string, string> collector)
    {
        _clock.Time += TimeSpan.FromSeconds(1);
        var left = new System.Collections.Generic.List<string>();
        while (collector.TryTakeDue(out RecordBatch<string, string> batch))
        {
            left.AddRange(batch.Select(r => r.Partition.Value + "@" + r.Offset.Value));
        }

        Assert.Null(collector.UntilNextDue);
        return [.. left];
    }

    [Fact]
    public void ABatchIsHandedOverWhenFull_EachPartitionFillingItsOwn()
    {
        BatchCollector<string, string> collector = Collector();

        Assert.Null(Add(collector, 0, 0));
        Assert.Null(Add(collector, 1, 0));
        Assert.Null(Add(collector, 0, 1));
        RecordBatch<string, string> full = Assert.IsType<RecordBatch<string, string>>(Add(collector, 0, 2));

        Assert.Equal([0L, 1, 2], Offsets(full));
        Assert.Equal(3, full.Count);
        Assert.Equal(new TopicPartitionOffset("orders", 0, 0), full.Position);
        _clock.Time += TimeSpan.FromMilliseconds(1);
        Assert.Null(Add(collector, 0, 3)); // a new batch for partition 0, due after partition 1's
        Assert.Equal(["1@0", "0@3"], LeftInOpenBatches(collector)); // partition 1's record waited on
    }

    [Fact]
    public void ABatchFallsDueWhenItsFirstRecordHasWaited_OldestFirst_HoweverManyCameAfter()
    {
        BatchCollector<string, string> collector = Collector(maxSize: 100);
        Add(collector, 0, 0);
        _clock.Time += TimeSpan.FromMilliseconds(400);
        Add(collector, 1, 0);
        Add(collector, 0, 1);

        Assert.Equal(TimeSpan.FromMilliseconds(600), collector.UntilNextDue);
        Assert.False(collector.TryTakeDue(out _));

        _clock.Time += TimeSpan.FromMilliseconds(600);
        Assert.True(collector.TryTakeDue(out RecordBatch<string, string> first));
        Assert.Equal([0L, 1], Offsets(first));
        Assert.False(collector.TryTakeDue(out _)); // partition 1's opened later
        Assert.Equal(TimeSpan.FromMilliseconds(400), collector.UntilNextDue);

        _clock.Time += TimeSpan.FromSeconds(5);
        Assert.True(collector.TryTakeDue(out RecordBatch<string, string> second));
        Assert.Equal(1, second.Partition.Value);
        Assert.Null(collector.UntilNextDue);
    }

    [Fact]
    public void AHandedOverBatch_IsNotKeptAlive_BehindAQuietPartitionsOlderOpenBatch()
    {
        // A quiet partition's batch waits up to MaxWait; meanwhile the busy partitions' batches are handed over,
        // concluded and dropped. The collector must not hold them (and every record in them) until the quiet one closes.
        BatchCollector<string, string> collector = Collector(maxSize: 2);
        Add(collector, 0, 0); // opens first, stays open

        WeakReference[] handedOver = HandOverBusyPartitionsBatches(collector, batches: 50);
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();

        Assert.Equal(0, handedOver.Count(reference => reference.IsAlive));
        _clock.Time += TimeSpan.FromSeconds(1);
        Assert.True(collector.TryTakeDue(out RecordBatch<string, string> quiet));
        Assert.Equal([0L], Offsets(quiet));
        Assert.False(collector.TryTakeDue(out _));
        Assert.Null(collector.UntilNextDue);
    }

    [MethodImpl(MethodImplOptions.NoInlining)] // the batches must not stay alive in the test's own locals
    private static WeakReference[] HandOverBusyPartitionsBatches(BatchCollector<string, string> collector, int batches)
    {
        var handedOver = new WeakReference[batches];
        for (int i = 0; i < batches; i++)
        {
            Add(collector, 1, 2 * i);
            RecordBatch<string, string> full = Add(collector, 1, (2 * i) + 1)!;
            full.ReleaseBytes(); // concluded
            handedOver[i] = new WeakReference(full);
        }

        return handedOver;
    }

    [Fact]
    public void AFullBatch_IsNotHandedOverAgainWhenItsTimeComes()
    {
        BatchCollector<string, string> collector = Collector(maxSize: 2);
        Add(collector, 0, 0);
        Assert.NotNull(Add(collector, 0, 1));

        _clock.Time += TimeSpan.FromSeconds(5);

        Assert.False(collector.TryTakeDue(out _));
        Assert.Null(collector.UntilNextDue);
    }

    [Fact]
    public void ACut_HandsOverThePartitionsOpenBatchOnly()
    {
        BatchCollector<string, string> collector = Collector(maxSize: 100);
        Add(collector, 0, 0);
        Add(collector, 0, 1);
        Add(collector, 1, 0);

        RecordBatch<string, string> cut = Assert.IsType<RecordBatch<string, string>>(collector.Cut("orders", 0));

        Assert.Equal([0L, 1], Offsets(cut));
        Assert.Null(collector.Cut("orders", 0));
        Assert.Null(collector.Cut("orders", 7));
        Assert.Equal(["1@0"], LeftInOpenBatches(collector));
    }

    [Fact]
    public void AcrossPartitions_OneBatchHoldsThemAll_AndDiscardingAPartitionKeepsTheOthersRecordsBytesAndDueTime()
    {
        BatchCollector<string, string> collector = Collector(maxSize: 100, acrossPartitions: true);
        Add(collector, 0, 0, "a");
        Add(collector, 1, 0, "b");
        _clock.Time += TimeSpan.FromMilliseconds(300);
        Add(collector, 0, 1, "c");
        Add(collector, 2, 0, null);

        collector.Discard(new TopicPartition("orders", 0));

        Assert.Equal(TimeSpan.FromMilliseconds(700), collector.UntilNextDue); // still due when its first record's wait runs out
        RecordBatch<string, string> rest = Assert.IsType<RecordBatch<string, string>>(collector.Cut("orders", 1));
        Assert.Equal([1, 2], rest.Select(r => r.Partition.Value));
        Assert.Equal(("b", "v0"), Text(rest.BytesOf(0)));
        Assert.Equal(((string?)null, "v0"), Text(rest.BytesOf(1))); // a null key stays null
    }

    [Fact]
    public void APartitionsOpenBatch_IsDiscarded_WhenItIsTakenAway_AndEverythingAtShutdown()
    {
        BatchCollector<string, string> collector = Collector(maxSize: 100);
        Add(collector, 0, 0);
        Add(collector, 1, 0);

        collector.Discard(new TopicPartition("orders", 0));
        Assert.Null(collector.Cut("orders", 0));
        Assert.Equal(TimeSpan.FromSeconds(1), collector.UntilNextDue); // partition 1's batch is still open

        collector.DiscardAll();
        Assert.Null(collector.UntilNextDue);
        Assert.Equal(0, Pausing.ReadAheadBytes);
        _clock.Time += TimeSpan.FromSeconds(5);
        Assert.False(collector.TryTakeDue(out _));
    }

    [Fact]
    public void ABatchKeepsEachRecordsOwnBytes_AsWritten()
    {
        BatchCollector<string, string> collector = Collector(maxSize: 3);
        Add(collector, 0, 0, "first");
        Add(collector, 0, 1, null);
        RecordBatch<string, string> batch = Add(collector, 0, 2, "third")!;

        Assert.Equal(("first", "v0"), Text(batch.BytesOf(0)));
        Assert.Equal(((string?)null, "v1"), Text(batch.BytesOf(1)));
        Assert.Equal(("third", "v2"), Text(batch.BytesOf(2)));
        Assert.Equal("orders [0] @0..2 (3 records)", batch.Describe());
    }

    [Fact]
    public void RecordsInOpenBatches_CountAgainstTheReadAheadBudget_UntilTheirBatchIsHandedOverOrDiscarded()
    {
        BatchCollector<string, string> collector = Collector(maxSize: 2);
        Add(collector, 0, 0, "k");
        long oneRecord = Pausing.ReadAheadBytes;
        Add(collector, 1, 0, "k");
        Assert.True(oneRecord > "kv0".Length);
        Assert.Equal(2 * oneRecord, Pausing.ReadAheadBytes);

        RecordBatch<string, string> full = Add(collector, 0, 1, "k")!; // handed over: whoever takes it counts it from now on
        Assert.Equal(oneRecord, Pausing.ReadAheadBytes);
        Assert.True(full.ReadAheadCharge > oneRecord);

        collector.Discard(new TopicPartition("orders", 1));
        Assert.Equal(0, Pausing.ReadAheadBytes);
    }

    [Fact]
    public void ABatchIsHandedOver_AsSoonAsTheReadAheadBudgetRunsOut_AndItsPartitionPauses()
    {
        BatchCollector<string, string> measured = Collector(maxSize: 100);
        Add(measured, 0, 0, "k");
        Add(measured, 1, 0, "k");
        Add(measured, 0, 1, "k");
        Add(measured, 1, 1, "k");
        long fourRecords = Pausing.ReadAheadBytes;

        BatchCollector<string, string> collector = Collector(maxSize: 100, readAhead: fourRecords);
        Assert.Null(Add(collector, 0, 0, "k"));
        Assert.Null(Add(collector, 1, 0, "k"));
        Assert.Null(Add(collector, 0, 1, "k"));
        Assert.Empty(_paused.Paused);
        long threeRecords = Pausing.ReadAheadBytes;

        // Its partition pauses, so the batch would not grow: it goes now, not when its wait runs out.
        RecordBatch<string, string> handedOver = Assert.IsType<RecordBatch<string, string>>(Add(collector, 1, 1, "k"));

        Assert.Equal([1], _paused.Paused);
        Assert.Equal([0L, 1], Offsets(handedOver));
        Assert.Equal(1, handedOver.Partition.Value);
        Assert.Equal(fourRecords - handedOver.ReadAheadCharge, Pausing.ReadAheadBytes); // partition 0's batch waits on, still counted
        Assert.True(Pausing.ReadAheadBytes < threeRecords);
        Assert.Equal(["0@0", "0@1"], LeftInOpenBatches(collector));
    }

    /// <summary>The Kafka client's side of pausing: which partitions are paused.</summary>
    private sealed class PausedPartitions : IPartitionFetching
    {
        public System.Collections.Generic.HashSet<int> Paused { get; } = [];

        public void Pause(TopicPartition partition) => Paused.Add(partition.Partition.Value);

        public void Resume(TopicPartition partition) => Paused.Remove(partition.Partition.Value);

        public void Seek(TopicPartitionOffset record)
        {
        }
    }
}
