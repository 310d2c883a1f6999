using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.Hosting.Diagnostics;
using KafkaProtobuf.Tests.Support;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Vectors.Telemetry.V1;
using Xunit;
using static KafkaProtobuf.Tests.EndToEnd.DeviceRecords;

namespace KafkaProtobuf.Tests.Hosting;

/// <summary>
/// When a record's value is deserialized with several handlers: in partition order when a handler takes it (a record
/// read ahead holds its bytes alone), in key order when it is consumed. Handlers finish only when the test lets them,
/// and what the consumer took is counted by the probe, so nothing here depends on how fast anything ran.
/// </summary>
public sealed class HostedConsumerReadAtHandOverTests() : HostedConsumerTestBase("hand-over")
{
    private const string Name = "hand-over";
    private const int Records = 12;

    [Theory]
    [InlineData(HandlingOrder.Partition, false)]
    [InlineData(HandlingOrder.Key, true)]
    public async Task RecordsReadAhead_AreDeserializedWhenAHandlerTakesThem_InPartitionOrder_WhenConsumed_InKeyOrder(HandlingOrder order, bool readAtConsume)
    {
        ProduceAcrossPartitions("ahead", 1, Records);
        var deserializer = new CountingDeserializer();
        using var probe = new DeliveryProbe(Name, Group);
        using var gate = new SemaphoreSlim(0);
        var handled = new ConcurrentQueue<int>();
        IHost host = Start("ahead", deserializer, gate, handled, order);

        // The handlers wait: the consumer reads every record ahead meanwhile.
        Wait.Until(() => probe.DeliveredCount >= Records, () => $"all {Records} records consumed (so far {probe.DeliveredCount})", Deadline);
        Assert.Equal(readAtConsume ? Records : 1, deserializer.Calls); // in partition order only the record in its handler was read

        gate.Release(Records);
        Wait.Until(() => handled.Count == Records, () => $"all records handled (so far {handled.Count})", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        Assert.Equal(Records, deserializer.Calls); // each read once
        Assert.Equal(Enumerable.Range(0, Records), handled.Order());
        Assert.Equal(new long[] { Records }, Committed("ahead", 1));
    }

    [Theory]
    [InlineData(HandlingOrder.Partition)]
    [InlineData(HandlingOrder.Key)]
    public async Task ARecordWhoseSchemaIsUnavailable_WhenAHandlerTakesIt_IsReadAgainLater_AndNoRecordIsHandledTwice(HandlingOrder order)
    {
        const int Unavailable = 3;
        ProduceAcrossPartitions("outage", 1, Records);
        var deserializer = new CountingDeserializer { UnavailableOnce = Unavailable };
        using var probe = new DeliveryProbe(Name, Group);
        using var gate = new SemaphoreSlim(0);
        var handled = new ConcurrentQueue<int>();
        IHost host = Start("outage", deserializer, gate, handled, order);

        Wait.Until(() => probe.DeliveredCount >= Unavailable + 1, () => $"the record at {Unavailable} consumed (so far {probe.DeliveredCount})", Deadline);
        gate.Release(1_000);
        Wait.Until(() => handled.Count >= Records, () => $"all records handled (so far {handled.Count})", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        Assert.Equal(new long[] { Unavailable }, probe.MovedBackForSchema);
        Assert.Equal(Records, handled.Count); // none twice
        Assert.Equal(Enumerable.Range(0, Records), handled.Order());
        Assert.Equal(new long[] { Records }, Committed("outage", 1));
    }

    [Fact]
    public async Task APoisonRecordReadAhead_IsDeadLetteredInItsTurn_WhenAHandlerTakesIt()
    {
        const int Poison = 4;
        ProduceAcrossPartitions("poison", 1, Records, (0, Poison));
        Cluster.CreateTopic("poison.dlq", 1);
        var deserializer = new CountingDeserializer();
        using var probe = new DeliveryProbe(Name, Group);
        using var gate = new SemaphoreSlim(0);
        var handled = new ConcurrentQueue<int>();
        IHost host = Start("poison", deserializer, gate, handled, HandlingOrder.Partition);

        Wait.Until(() => probe.DeliveredCount >= Records, () => $"all {Records} records consumed (so far {probe.DeliveredCount})", Deadline);
        Assert.Empty(probe.DeadLetteredOffsets); // it is read only when its turn comes
        gate.Release(Records);
        Wait.Until(() => handled.Count == Records - 1 && probe.DeadLetteredOffsets.Count == 1, () => $"the good records handled (so far {handled.Count}) and the poison dead-lettered", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        Assert.Equal(new long[] { Poison }, probe.DeadLetteredOffsets);
        Assert.Equal(Enumerable.Range(0, Records).Where(n => n != Poison), handled);
        Assert.Equal(Enumerable.Range(0, Records).Select(n => (long)n), probe.StoredOrDeadLettered);
        Assert.Equal(new long[] { Records }, Committed("poison", 1));
    }

    [Fact]
    public async Task ADeserializerOfTheUsersOwn_IsNeverCalledByTwoThreadsAtOnce_ThoughHandlersReadRecordsOnTheirWorkers()
    {
        const int Partitions = 6;
        ProduceAcrossPartitions("own", Partitions, 10);
        var deserializer = new CountingDeserializer { HoldFor = TimeSpan.FromMilliseconds(2) };
        var handled = new ConcurrentQueue<int>();
        IHost host = StartHost("own", "own", builder => builder.WithValueDeserializer(_ => deserializer).Handle(async (record, token) =>
        {
            await Task.Yield(); // on a worker: the next record of another partition is read meanwhile
            handled.Enqueue(SequenceOf(record.Message.Value));
        }), options => options.MaxConcurrentHandlers = Partitions);

        Wait.Until(() => handled.Count == Partitions * 10, () => $"all records handled (so far {handled.Count})", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        Assert.Equal(1, deserializer.MostAtOnce);
        Assert.Equal(Partitions * 10, deserializer.Calls);
    }

    /// <summary>Two handlers, each waiting for the gate, then noting the record's number.</summary>
    private IHost Start(string topic, CountingDeserializer deserializer, SemaphoreSlim gate, ConcurrentQueue<int> handled, HandlingOrder order) =>
        StartHost(Name, topic, builder => builder.WithValueDeserializer(_ => deserializer).Handle(async (record, token) =>
        {
            await gate.WaitAsync(token);
            handled.Enqueue(SequenceOf(record.Message.Value));
        }), options =>
        {
            options.MaxConcurrentHandlers = 2;
            options.HandlingOrder = order;
        });

    /// <summary>The library's deserializer, counting its calls; with <see cref="UnavailableOnce"/>, that record's writer's schema is unavailable the first time.</summary>
    private sealed class CountingDeserializer : IDeserializer<Device>
    {
        private readonly FramedProtobufDeserializer<Device> _inner = new();
        private int _calls;
        private int _failed;
        private int _running;
        private int _mostAtOnce;

        public int? UnavailableOnce { get; init; }

        public TimeSpan HoldFor { get; init; }

        public int Calls => Volatile.Read(ref _calls);

        /// <summary>The most calls that were running at once.</summary>
        public int MostAtOnce => Volatile.Read(ref _mostAtOnce);

        public Device Deserialize(ReadOnlySpan<byte> data, bool isNull, SerializationContext context)
        {
            int atOnce = Interlocked.Increment(ref _running);
            InterlockedMax(ref _mostAtOnce, atOnce);
            try
            {
                if (HoldFor > TimeSpan.Zero)
                {
                    Thread.Sleep(HoldFor); // a deserializer that keeps state would race here
                }

                return Read(data, isNull, context);
            }
            finally
            {
                Interlocked.Decrement(ref _running);
            }
        }

        private static void InterlockedMax(ref int most, int value)
        {
            int seen;
            while (value > (seen = Volatile.Read(ref most)) && Interlocked.CompareExchange(ref most, value, seen) != seen)
            {
            }
        }

        private Device Read(ReadOnlySpan<byte> data, bool isNull, SerializationContext context)
        {
            Device device = _inner.Deserialize(data, isNull, context)!;
            if (SequenceOf(device) == UnavailableOnce && Interlocked.Exchange(ref _failed, 1) == 0)
            {
                throw new SchemaUnavailableException(SchemaIdentifier.FromId(2), context.Component, context.Topic, new TimeoutException("the registry did not answer"));
            }

            Interlocked.Increment(ref _calls);
            return device;
        }
    }

    private sealed class DeliveryProbe(string consumer, string group) : ConsumerEvents(consumer, group)
    {
        private readonly ConcurrentQueue<long> _movedBack = new();
        private readonly ConcurrentQueue<long> _deadLettered = new();
        private readonly ConcurrentQueue<long> _storedOrDeadLettered = new();
        private int _delivered;

        public int DeliveredCount => Volatile.Read(ref _delivered);

        public List<long> MovedBackForSchema => [.. _movedBack];

        public List<long> DeadLetteredOffsets => [.. _deadLettered];

        public List<long> StoredOrDeadLettered => [.. _storedOrDeadLettered];

        public override void Delivered(TopicPartitionOffset record) => Interlocked.Increment(ref _delivered);

        public override void MovedBack(TopicPartitionOffset record, bool schemaUnavailable)
        {
            if (schemaUnavailable)
            {
                _movedBack.Enqueue(record.Offset.Value);
            }
        }

        public override void DeadLettered(TopicPartitionOffset record)
        {
            _deadLettered.Enqueue(record.Offset.Value);
            _storedOrDeadLettered.Enqueue(record.Offset.Value);
        }

        public override void Stored(TopicPartitionOffset record) => _storedOrDeadLettered.Enqueue(record.Offset.Value);
    }
}
