using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.Testing;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Vectors.Telemetry.V1;
using Xunit;
using static KafkaProtobuf.Tests.EndToEnd.DeviceRecords;

namespace KafkaProtobuf.Tests.Hosting;

/// <summary>
/// What the hosted-consumer tests share: one embedded broker (no initial rebalance delay), a consumer group of the
/// test's own, a host per consumer of string keys and <see cref="Device"/> values (auto-commit every 100 ms, a
/// dead-letter topic, quick back-offs) disposed with the test, and the group's committed offsets.
/// </summary>
public abstract class HostedConsumerTestBase : IDisposable
{
    protected static readonly TimeSpan Deadline = TimeSpan.FromSeconds(60);

    private readonly List<IHost> _hosts = [];

    protected HostedConsumerTestBase(string groupPrefix)
    {
        Cluster = EmbeddedKafkaCluster.Start(1);
        Cluster.SetGroupInitialRebalanceDelay(TimeSpan.Zero);
        Group = groupPrefix + "-" + Guid.NewGuid().ToString("N");
    }

    protected EmbeddedKafkaCluster Cluster { get; }

    protected string Group { get; }

    public void Dispose()
    {
        Dispose(true);
        GC.SuppressFinalize(this);
    }

    protected virtual void Dispose(bool disposing)
    {
        if (disposing)
        {
            foreach (IHost host in _hosts)
            {
                host.Dispose();
            }

            Cluster.Dispose();
        }
    }

    /// <summary>Starts a host running one hosted consumer of <paramref name="topic"/>; <paramref name="services"/> adds what the test needs (health checks, a probe).</summary>
    protected IHost StartHost(
        string name,
        string topic,
        Func<ConsumeResult<string, Device>, CancellationToken, Task> handler,
        Action<KafkaProtobufConsumerOptions>? configure = null,
        Action<IServiceCollection>? services = null) =>
        StartHost(name, topic, builder => builder.Handle(handler), configure, services);

    /// <summary>Starts a host running one hosted consumer of <paramref name="topic"/> whose handler (a record or a batch handler) <paramref name="handle"/> sets.</summary>
    protected IHost StartHost(
        string name,
        string topic,
        Action<KafkaProtobufConsumerBuilder<string, Device>> handle,
        Action<KafkaProtobufConsumerOptions>? configure = null,
        Action<IServiceCollection>? services = null)
    {
        var builder = new HostApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        services?.Invoke(builder.Services);
        KafkaProtobufConsumerBuilder<string, Device> consumer = builder.Services
            .AddKafkaProtobufConsumer<string, Device>(name, options =>
            {
                options.Consumer = Cluster.CreateConsumerConfig(Group);
                options.Consumer.EnableAutoCommit = null; // the hosted consumer owns offsets
                options.Consumer.AutoCommitIntervalMs = 100;
                options.Topics.Add(topic);
                options.DeadLetterTopic = topic + ".dlq";
                options.CopyProducer = Cluster.CreateProducerConfig();
                options.ReadAgainDelay = TimeSpan.FromMilliseconds(50);
                options.FailureExitCode = 0; // a failing consumer in a test must not set the test process's exit code
                options.HandlerFailures.RetryBackoff = TimeSpan.FromMilliseconds(10);
                options.HandlerFailures.MaxRetryBackoff = TimeSpan.FromMilliseconds(40);
                configure?.Invoke(options);
            })
            .WithProtobufValues();
        handle(consumer);
        IHost host = builder.Build();
        _hosts.Add(host);
        host.StartAsync().WaitAsync(Deadline).GetAwaiter().GetResult();
        return host;
    }

    /// <summary>Good values numbered by partition and offset (partition * 1000 + offset), keyed "k" + offset, poison at the given (partition, offset) pairs.</summary>
    protected void ProduceAcrossPartitions(string topic, int partitions, int perPartition, params (int Partition, int Offset)[] poison) =>
        ProduceAcrossPartitions(topic, partitions, perPartition, offset => "k" + offset, poison);

    protected void ProduceAcrossPartitions(string topic, int partitions, int perPartition, Func<int, string> keyOf, params (int Partition, int Offset)[] poison)
    {
        Cluster.CreateTopic(topic, partitions);
        ProduceMore(topic, partitions, 0, perPartition, keyOf, poison);
    }

    /// <summary>More good values to an existing topic, numbered from <paramref name="from"/> (their offsets, if the partitions held that many).</summary>
    protected void ProduceMore(string topic, int partitions, int from, int count) => ProduceMore(topic, partitions, from, count, offset => "k" + offset);

    private void ProduceMore(string topic, int partitions, int from, int count, Func<int, string> keyOf, params (int Partition, int Offset)[] poison)
    {
        using IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(Cluster.CreateProducerConfig()).Build();
        for (int offset = from; offset < from + count; offset++)
        {
            for (int p = 0; p < partitions; p++)
            {
                byte[] value = poison.Contains((p, offset)) ? Encoding.UTF8.GetBytes("{\"not\":\"framed\"}") : GoodValue((p * 1000) + offset);
                producer.Produce(new TopicPartition(topic, p), new Message<byte[], byte[]> { Key = Encoding.UTF8.GetBytes(keyOf(offset)), Value = value });
            }
        }

        Assert.Equal(0, producer.Flush(Deadline));
    }

    /// <summary>Checks health until it is <paramref name="wanted"/> (and <paramref name="also"/> holds), up to <see cref="Deadline"/>.</summary>
    internal static async Task<Microsoft.Extensions.Diagnostics.HealthChecks.HealthReport> PollHealth(
        Microsoft.Extensions.Diagnostics.HealthChecks.HealthCheckService health, Microsoft.Extensions.Diagnostics.HealthChecks.HealthStatus wanted, Func<bool>? also = null)
    {
        DateTime end = DateTime.UtcNow + Deadline;
        while (true)
        {
            Microsoft.Extensions.Diagnostics.HealthChecks.HealthReport report = await health.CheckHealthAsync();
            if (report.Status == wanted && (also is null || also()))
            {
                return report;
            }

            if (DateTime.UtcNow > end)
            {
                throw new TimeoutException("waited in vain for health " + wanted + "; last " + report.Status + ": " + string.Join("; ", report.Entries.Values.Select(e => e.Description)));
            }

            await Task.Delay(20);
        }
    }

    /// <summary>What the group has committed on each partition of <paramref name="topic"/> (the next offset to read).</summary>
    protected long[] Committed(string topic, int partitions)
    {
        using IConsumer<Ignore, Ignore> reader = new ConsumerBuilder<Ignore, Ignore>(Cluster.CreateConsumerConfig(Group)).Build();
        return reader.Committed(Enumerable.Range(0, partitions).Select(p => new TopicPartition(topic, p)), TimeSpan.FromSeconds(10))
            .OrderBy(c => c.Partition.Value).Select(c => c.Offset.Value).ToArray();
    }
}
