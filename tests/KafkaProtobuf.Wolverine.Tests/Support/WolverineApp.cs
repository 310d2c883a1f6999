using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Testing;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Wolverine;
using Wolverine.Kafka;

namespace KafkaProtobuf.Wolverine.Tests.Support;

/// <summary>A Wolverine application on the embedded cluster, as a user sets one up, with the test's handlers only.</summary>
public static class WolverineApp
{
    public static readonly TimeSpan Wait = TimeSpan.FromSeconds(60);

    /// <summary>Builds and starts the host; <paramref name="configure"/> adds the listeners and routes.</summary>
    public static Task<IHost> StartAsync(EmbeddedKafkaCluster cluster, string deadLetterTopic, Action<WolverineOptions> configure) =>
        StartAsync(cluster, deadLetterTopic, AutoOffsetReset.Earliest, configure);

    /// <summary>Builds and starts the host, a new consumer group starting at <paramref name="start"/>.</summary>
    public static Task<IHost> StartAsync(EmbeddedKafkaCluster cluster, string deadLetterTopic, AutoOffsetReset start, Action<WolverineOptions> configure) =>
        StartAsync(cluster, deadLetterTopic, start, "wolverine-" + Guid.NewGuid().ToString("N"), configure);

    /// <summary>Builds and starts the host in consumer group <paramref name="group"/>, which starts at <paramref name="start"/> if it has no offsets.</summary>
    public static async Task<IHost> StartAsync(EmbeddedKafkaCluster cluster, string deadLetterTopic, AutoOffsetReset start, string group, Action<WolverineOptions> configure)
    {
        IHost host = Host.CreateDefaultBuilder()
            .ConfigureLogging(logging => logging.ClearProviders().SetMinimumLevel(LogLevel.Warning).AddProvider(new CapturedLogs()))
            .UseWolverine(opts =>
            {
                opts.Discovery.DisableConventionalDiscovery().IncludeType(typeof(TelemetryHandlers));
                opts.UseKafka(cluster.BootstrapServers)
                    .ConfigureConsumers(consumer =>
                    {
                        consumer.AutoOffsetReset = start;
                        consumer.GroupId = group;
                        // Seen here: a host stopped while its listener waited for the registry left a member in the group,
                        // and the next host of the group waited out its session (44 s at the default 45 s).
                        consumer.SessionTimeoutMs = 6000;
                        consumer.HeartbeatIntervalMs = 1000;
                    })
                    .DeadLetterQueueTopicName(deadLetterTopic);
                configure(opts);
            })
            .Build();
        using var timeout = new CancellationTokenSource(Wait);
        await host.StartAsync(timeout.Token);
        return host;
    }

    /// <summary>Stops the host within the wait, then disposes it.</summary>
    public static async Task StopAsync(IHost host)
    {
        using var timeout = new CancellationTokenSource(Wait);
        try
        {
            await host.StopAsync(timeout.Token);
        }
        finally
        {
            host.Dispose();
        }
    }

    /// <summary>Writes raw records to <paramref name="topic"/>, as another application's producer did.</summary>
    public static void Produce(EmbeddedKafkaCluster cluster, string topic, IEnumerable<Message<byte[], byte[]>> records)
    {
        using IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(cluster.CreateProducerConfig()).Build();
        foreach (Message<byte[], byte[]> record in records)
        {
            producer.Produce(topic, record);
        }

        if (producer.Flush(Wait) > 0)
        {
            throw new TimeoutException("The records were not all written.");
        }
    }

    /// <summary>Reads <paramref name="count"/> records of <paramref name="topic"/> from its start (a dead-letter queue, as an operator reads it).</summary>
    public static List<ConsumeResult<byte[], byte[]>> Read(EmbeddedKafkaCluster cluster, string topic, int count)
    {
        var records = new List<ConsumeResult<byte[], byte[]>>();
        using IConsumer<byte[], byte[]> consumer = new ConsumerBuilder<byte[], byte[]>(cluster.CreateConsumerConfig("reader-" + Guid.NewGuid().ToString("N"))).Build();
        consumer.Assign(new TopicPartitionOffset(topic, 0, Offset.Beginning));
        DateTime end = DateTime.UtcNow + Wait;
        while (records.Count < count)
        {
            if (DateTime.UtcNow > end)
            {
                throw new TimeoutException("Read " + records.Count + " of " + count + " records of " + topic + ".");
            }

            if (consumer.Consume(TimeSpan.FromMilliseconds(200)) is { IsPartitionEOF: false } record)
            {
                records.Add(record);
            }
        }

        return records;
    }
}
