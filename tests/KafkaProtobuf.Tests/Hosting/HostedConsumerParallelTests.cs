using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tests.Support;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Vectors.Telemetry.V1;
using Xunit;
using static KafkaProtobuf.Tests.EndToEnd.DeviceRecords;

namespace KafkaProtobuf.Tests.Hosting;

/// <summary>
/// Partition-parallel mode (MaxConcurrentRecords above 1) on the embedded cluster: records of different partitions in
/// their handlers at once, each partition's in order; offsets committed only for what was handled; a partition's lane
/// bounded by pausing its fetching; poison records and failed handlers dead-lettered in order. Nothing asserts on time.
/// </summary>
public sealed class HostedConsumerParallelTests : IDisposable
{
    private static readonly TimeSpan Deadline = TimeSpan.FromSeconds(60);

    private readonly EmbeddedKafkaCluster _cluster = StartCluster();
    private readonly string _group = "parallel-" + Guid.NewGuid().ToString("N");
    private readonly List<IHost> _hosts = [];

    private static EmbeddedKafkaCluster StartCluster()
    {
        EmbeddedKafkaCluster cluster = EmbeddedKafkaCluster.Start(1);
        cluster.SetGroupInitialRebalanceDelay(TimeSpan.Zero);
        return cluster;
    }

    public void Dispose()
    {
        foreach (IHost host in _hosts)
        {
            host.Dispose();
        }

        _cluster.Dispose();
    }

    /// <summary>Good values numbered by partition and offset (partition * 1000 + offset), poison at the given (partition, offset) pairs.</summary>
    private void Produce(string topic, int partitions, int perPartition, params (int Partition, int Offset)[] poison)
    {
        _cluster.CreateTopic(topic, partitions);
        using IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(_cluster.CreateProducerConfig()).Build();
        for (int offset = 0; offset < perPartition; offset++)
        {
            for (int p = 0; p < partitions; p++)
            {
                byte[] value = poison.Contains((p, offset)) ? Encoding.UTF8.GetBytes("{\"not\":\"framed\"}") : GoodValue((p * 1000) + offset);
                producer.Produce(new TopicPartition(topic, p), new Message<byte[], byte[]> { Key = Encoding.UTF8.GetBytes("k" + offset), Value = value });
            }
        }

        Assert.Equal(0, producer.Flush(Deadline));
    }

    private (IHost Host, KafkaProtobufConsumerService<string, Device> Service) Start(string topic, Func<ConsumeResult<string, Device>, CancellationToken, Task> handler, Action<KafkaProtobufConsumerOptions> configure)
    {
        var builder = new HostApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Services
            .AddKafkaProtobufConsumer<string, Device>("parallel", options =>
            {
                options.Consumer = _cluster.CreateConsumerConfig(_group);
                options.Consumer.EnableAutoCommit = null;
                options.Consumer.AutoCommitIntervalMs = 100;
                options.Topics.Add(topic);
                options.DeadLetterTopic = topic + ".dlq";
                options.DeadLetterProducer = _cluster.CreateProducerConfig();
                options.HandlerFailures.InitialBackOff = TimeSpan.FromMilliseconds(5);
                options.HandlerFailures.MaxBackOff = TimeSpan.FromMilliseconds(20);
                configure(options);
            })
            .WithProtobufValues()
            .Handle(handler);
        IHost host = builder.Build();
        _hosts.Add(host);
        host.StartAsync().WaitAsync(Deadline).GetAwaiter().GetResult();
        return (host, host.Services.GetServices<IHostedService>().OfType<KafkaProtobufConsumerService<string, Device>>().Single());
    }

    private long[] Committed(string topic, int partitions)
    {
        using IConsumer<Ignore, Ignore> reader = new ConsumerBuilder<Ignore, Ignore>(_cluster.CreateConsumerConfig(_group)).Build();
        return reader.Committed(Enumerable.Range(0, partitions).Select(p => new TopicPartition(topic, p)), TimeSpan.FromSeconds(10))
            .OrderBy(c => c.Partition.Value).Select(c => c.Offset.Value).ToArray();
    }

    [Fact]
    public async Task SixPartitions_HandledAtOnce_EachInOrder_UnderRandomDelays_AndEverythingHandledIsCommitted()
    {
        const int Partitions = 6;
        const int PerPartition = 150;
        Produce("sensors", Partitions, PerPartition);
        var handled = new ConcurrentDictionary<int, ConcurrentQueue<long>>();
        int inHandlers = 0;
        int mostAtOnce = 0;
        int arrived = 0;
        using var together = new ManualResetEventSlim();
        (IHost host, _) = Start("sensors", async (record, token) =>
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
        }, options => options.MaxConcurrentRecords = Partitions);

        Wait.Until(() => handled.Values.Sum(q => q.Count) == Partitions * PerPartition, "every record handled", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        Assert.InRange(mostAtOnce, 2, Partitions);
        Assert.All(Enumerable.Range(0, Partitions), p => Assert.Equal(Enumerable.Range(0, PerPartition).Select(o => (long)o), handled[p]));
        Assert.Equal(Enumerable.Repeat((long)PerPartition, Partitions), Committed("sensors", Partitions));
    }

    [Fact]
    public async Task ASlowHandler_KeepsEachPartitionsLaneWithinItsBound_ByPausingFetching_AndLosesNothing()
    {
        const int PerPartition = 80;
        Produce("slow", 2, PerPartition);
        var handled = new ConcurrentQueue<(int, long)>();
        (IHost host, KafkaProtobufConsumerService<string, Device> service) = Start("slow", async (record, token) =>
        {
            await Task.Delay(1, token);
            handled.Enqueue((record.Partition.Value, record.Offset.Value));
        }, options =>
        {
            options.MaxConcurrentRecords = 2;
            options.MaxQueuedRecordsPerPartition = 10;
        });

        Wait.Until(() => handled.Count == 2 * PerPartition, "every record handled", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        Assert.InRange(service.DeepestLane, 1, 10); // librdkafka prefetched far more: the lane held at most its bound
        Assert.Equal(2 * PerPartition, handled.Distinct().Count());
        Assert.All(handled.GroupBy(h => h.Item1), g => Assert.Equal(Enumerable.Range(0, PerPartition).Select(o => (long)o), g.Select(h => h.Item2)));
        Assert.Equal([PerPartition, PerPartition], Committed("slow", 2));
    }

    [Fact]
    public async Task PoisonAndAFailingHandler_AreDeadLetteredInTheirPartitionsOrder_WhileTheOtherPartitionFlows()
    {
        Produce("mixed", 2, 20, (0, 3));
        _cluster.CreateTopic("mixed.dlq", 1);
        var handled = new ConcurrentDictionary<int, ConcurrentQueue<long>>();
        (IHost host, _) = Start("mixed", (record, _) =>
        {
            if (record.Partition.Value == 0 && record.Offset.Value == 7)
            {
                throw new InvalidOperationException("no such sensor");
            }

            handled.GetOrAdd(record.Partition.Value, _ => new ConcurrentQueue<long>()).Enqueue(record.Offset.Value);
            return Task.CompletedTask;
        }, options =>
        {
            options.MaxConcurrentRecords = 2;
            options.HandlerFailures.MaxAttempts = 2;
        });

        Wait.Until(() => handled.Values.Sum(q => q.Count) == 38, "the 38 good records handled", Deadline);
        List<ConsumeResult<byte[], byte[]>> letters = ReadDeadLetters(_cluster.CreateConsumerConfig(), "mixed.dlq", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        Assert.Equal(Enumerable.Range(0, 20).Where(o => o is not (3 or 7)).Select(o => (long)o), handled[0]);
        Assert.Equal(Enumerable.Range(0, 20).Select(o => (long)o), handled[1]);
        Assert.Equal([3L, 7L], letters.Select(l => SourceOf(l.Message.Headers).Offset.Value));
        Assert.Equal(["value", "handler"], letters.Select(l => Encoding.UTF8.GetString(l.Message.Headers.GetLastBytes(DeadLetterHeaderNames.Component))));
        Assert.Equal(GoodValue(7), letters[1].Message.Value); // the failed record's own bytes, not those of a later record
        Assert.Equal([20L, 20L], Committed("mixed", 2));
    }

    private static void InterlockedMax(ref int target, int value)
    {
        int seen;
        while ((seen = Volatile.Read(ref target)) < value && Interlocked.CompareExchange(ref target, value, seen) != seen)
        {
        }
    }
}
