using System;
using System.Collections.Concurrent;
using System.Linq;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.Hosting.Batching;
using KafkaProtobuf.Hosting.Consuming;
using KafkaProtobuf.Hosting.Service;
using KafkaProtobuf.Tests.Support;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Vectors.Telemetry.V1;
using Xunit;
using Xunit.Abstractions;
using static KafkaProtobuf.Tests.EndToEnd.DeviceRecords;

namespace KafkaProtobuf.Tests.Hosting;

/// <summary>Live memory is measured here: no other test may allocate beside it.</summary>
[CollectionDefinition(nameof(HostedConsumerReadAheadTests), DisableParallelization = true)]
public sealed class HostedConsumerReadAheadRunsAlone;

/// <summary>
/// The read-ahead budget (<see cref="KafkaProtobufConsumerOptions.MaxReadAheadBytes"/>) on the embedded cluster: a
/// backlog many times the budget, large records on many partitions, and handlers that finish only when the test lets
/// them, so that what the consumer takes is decided by the bytes it read, not by how fast anything ran. And what is
/// handled is let go: batches handed over are not held behind a batch still collecting.
/// </summary>
[Collection(nameof(HostedConsumerReadAheadTests))]
public sealed class HostedConsumerReadAheadTests(ITestOutputHelper output) : HostedConsumerTestBase("read-ahead")
{
    private const int Partitions = 8;
    private const int PerPartition = 12;
    private const int ValueBytes = 64 * 1024;
    private const long Budget = 1024 * 1024;

    // Besides the records: what the host, the clients and the test's own bookkeeping may hold.
    private const long Overhead = 3 * 1024 * 1024;

    [Fact]
    public async Task ABacklogTwelveTimesTheBudget_IsTakenWithinIt_WithLiveMemoryWithinIt_AndEveryRecordHandledInOrder()
    {
        Cluster.CreateTopic("large", Partitions);
        long largest = Produce("large", _ => PerPartition);
        Assert.True(ReadAhead.Charge((long)Partitions * PerPartition * ValueBytes, Partitions * PerPartition) > 12 * Budget);

        var handled = new ConcurrentQueue<(int Partition, long Offset)>();
        using var gate = new SemaphoreSlim(0);
        using var readAhead = new ReadAheadCount("read-ahead", Group);
        long baseline = GC.GetTotalMemory(forceFullCollection: true);
        IHost host = StartHost("read-ahead", "large", async (record, token) =>
        {
            await gate.WaitAsync(token);
            Assert.Equal(ValueBytes, record.Message.Value.Firmware.Signature.Digest.Length);
            handled.Enqueue((record.Partition.Value, record.Offset.Value));
        }, options =>
        {
            options.MaxConcurrentHandlers = 2;
            options.MaxReadAheadBytes = Budget;
        });

        // Both handlers wait: the consumer takes records until the budget pauses it.
        Wait.Until(() => readAhead.Most >= Budget, "the consumer took records up to its budget", Deadline);
        long mostLive = 0;
        while (handled.Count < Partitions * PerPartition)
        {
            mostLive = Math.Max(mostLive, GC.GetTotalMemory(forceFullCollection: true) - baseline);
            int before = handled.Count;
            int step = Math.Min(Partitions, (Partitions * PerPartition) - before);
            gate.Release(step);
            Wait.Until(() => handled.Count >= before + step, () => $"{before + step} records handled (so far {handled.Count})", Deadline);
        }

        await host.StopAsync().WaitAsync(Deadline);
        output.WriteLine($"taken at most {readAhead.Most:N0} bytes by the budget's count; live memory grew by at most {mostLive:N0} bytes");

        // Past the budget, each partition took at most the one record that paused it.
        long bound = Budget + (Partitions * largest);
        Assert.True(mostLive < bound + Overhead, $"live memory grew by {mostLive:N0} bytes; the records taken are bounded by {bound:N0}");
        Assert.InRange(readAhead.Most, Budget, bound);
        Assert.All(handled.GroupBy(h => h.Partition), g => Assert.Equal(Enumerable.Range(0, PerPartition).Select(o => (long)o), g.Select(h => h.Offset)));
        Assert.Equal(Enumerable.Repeat((long)PerPartition, Partitions), Committed("large", Partitions));
    }

    [Fact]
    public async Task BatchesOfABacklogTwelveTimesTheBudget_CollectedAndHandled_StayWithinIt_AndNothingHandledStaysInMemory()
    {
        // What open batches collect counts as much as what their handlers hold: the consumer pauses once the two together
        // reach the budget, and hands over each batch its pause stopped. No batch fills (a partition has 12 records, a
        // batch takes 100): without the budget, each would collect its whole partition for a second.
        Cluster.CreateTopic("batched", Partitions);
        long largest = Produce("batched", _ => PerPartition);
        var handled = new ConcurrentQueue<(int Partition, long Offset)>();
        using var gate = new SemaphoreSlim(0);
        using var readAhead = new ReadAheadCount("batched", Group);
        long baseline = GC.GetTotalMemory(forceFullCollection: true);
        IHost host = StartHost("batched", "batched", builder => builder.HandleBatch(async (batch, token) =>
        {
            await gate.WaitAsync(token);
            foreach (ConsumeResult<string, Device> record in batch)
            {
                Assert.Equal(ValueBytes, record.Message.Value.Firmware.Signature.Digest.Length);
                handled.Enqueue((record.Partition.Value, record.Offset.Value));
            }
        }), options =>
        {
            options.MaxConcurrentHandlers = 2;
            options.MaxReadAheadBytes = Budget;
            options.Batches.MaxSize = 100;
            options.Batches.MaxWait = TimeSpan.FromSeconds(1);
        });

        Wait.Until(() => readAhead.Most >= Budget, "the consumer took records up to its budget", Deadline);
        long mostLive = 0;
        while (handled.Count < Partitions * PerPartition)
        {
            mostLive = Math.Max(mostLive, GC.GetTotalMemory(forceFullCollection: true) - baseline);
            int before = handled.Count;
            gate.Release();
            Wait.Until(() => handled.Count > before, () => $"a batch handled after {before} records (so far {handled.Count})", Deadline);
        }

        Wait.Until(() => Committed("batched", Partitions).All(c => c == PerPartition), "every partition committed to its end", Deadline);
        long liveAfter = GC.GetTotalMemory(forceFullCollection: true) - baseline;
        await host.StopAsync().WaitAsync(Deadline);
        output.WriteLine($"taken at most {readAhead.Most:N0} bytes by the budget's count; live memory grew by at most {mostLive:N0} bytes, {liveAfter:N0} once all was handled");

        // Past the budget, each partition took at most the record that paused it, and the chunk its bytes were copied into.
        long bound = Budget + (Partitions * (largest + CopiedBytes.LargestChunk));
        Assert.InRange(readAhead.Most, Budget, bound);
        Assert.True(mostLive < bound + Overhead, $"live memory grew by {mostLive:N0} bytes; the records taken are bounded by {bound:N0}");
        Assert.True(liveAfter < Overhead, $"live memory stayed {liveAfter:N0} bytes above where it started once every batch was handled");
        Assert.All(handled.GroupBy(h => h.Partition), g => Assert.Equal(Enumerable.Range(0, PerPartition).Select(o => (long)o), g.Select(h => h.Offset)));
    }

    [Fact]
    public async Task BatchesHandedOver_AreNotKeptInMemory_BehindAQuietPartitionsOpenBatch()
    {
        // Partition 0 holds one record: its batch stays open (the wait is longer than the test) while the other
        // partitions' batches are handed over and handled. What was handled must be free to collect.
        const int Busy = 24;
        Cluster.CreateTopic("quiet", Partitions);
        long largest = Produce("quiet", p => p == 0 ? 1 : Busy);
        var handled = new ConcurrentQueue<(int Partition, long Offset)>();
        long baseline = GC.GetTotalMemory(forceFullCollection: true);
        IHost host = StartHost("quiet", "quiet", builder => builder.HandleBatch((batch, _) =>
        {
            foreach (ConsumeResult<string, Device> record in batch)
            {
                handled.Enqueue((record.Partition.Value, record.Offset.Value));
            }

            return Task.CompletedTask;
        }), options =>
        {
            options.MaxConcurrentHandlers = 2;
            options.Batches.MaxSize = 2;
            options.Batches.MaxWait = TimeSpan.FromMinutes(10);
        });

        int busyRecords = (Partitions - 1) * Busy;
        Wait.Until(() => handled.Count >= busyRecords, () => $"the busy partitions' {busyRecords} records handled (so far {handled.Count})", Deadline);
        long live = GC.GetTotalMemory(forceFullCollection: true) - baseline;
        await host.StopAsync().WaitAsync(Deadline);
        output.WriteLine($"live memory grew by {live:N0} bytes after {busyRecords} records were handled (each charged at most {largest:N0} bytes by the read-ahead count)");

        Assert.Equal(busyRecords, handled.Count);
        Assert.DoesNotContain(handled, h => h.Partition == 0); // its batch was still open
        Assert.True(live < (2 * largest) + Overhead, $"live memory grew by {live:N0} bytes: handled records are still held ({busyRecords} handled, each charged at most {largest:N0} bytes)");
    }

    /// <summary>Devices of <see cref="ValueBytes"/> digest bytes on every partition, <paramref name="recordsOf"/> a partition; returns the largest record's read-ahead charge.</summary>
    private long Produce(string topic, Func<int, int> recordsOf)
    {
        using IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(Cluster.CreateProducerConfig()).Build();
        long largest = 0;
        int most = Enumerable.Range(0, Partitions).Max(recordsOf);
        for (int offset = 0; offset < most; offset++)
        {
            for (int p = 0; p < Partitions; p++)
            {
                if (offset >= recordsOf(p))
                {
                    continue;
                }

                var device = new Device
                {
                    Id = "device-" + ((p * 1000) + offset),
                    Firmware = new Device.Types.Firmware { Signature = new Device.Types.Firmware.Types.Signature { Digest = ByteString.CopyFrom(new byte[ValueBytes]) } },
                };
                byte[] value = [.. GoodValue(0).AsSpan(0, 7), .. device.ToByteArray()]; // the frame of a Device, then this one
                byte[] key = Encoding.UTF8.GetBytes("k" + offset);
                largest = Math.Max(largest, ReadAhead.Charge(key.Length + value.Length, 1));
                producer.Produce(new TopicPartition(topic, p), new Message<byte[], byte[]> { Key = key, Value = value });
            }
        }

        Assert.Equal(0, producer.Flush(Deadline));
        return largest;
    }
}
