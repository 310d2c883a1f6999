using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.Testing;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;

namespace KafkaProtobuf.Benchmarks.Tools;

/// <summary>
/// <c>memory [batches|records] [rounds]</c>: how much managed memory the hosted consumer keeps live while a backlog of
/// large records waits, and once the last is handled. 60 partitions of 70 records of 64 KB each (4,200, 269 MB; the
/// mock keeps about 5 MB a partition), six handlers at once awaiting 15 ms per record (a batch: 15 ms per record it
/// holds), <c>MaxReadAheadBytes</c> at its default (64 MiB), batches of up to 100. Live memory is
/// <c>GC.GetTotalMemory(forceFullCollection: true)</c> over what it was before the consumer started, sampled every
/// 250 ms while records are left, then 1.5 s and 8 s after the last was handled.
/// </summary>
internal static class ReadAheadMemory
{
    private const int Partitions = 60;
    private const int PerPartition = 70;
    private const int ValueBytes = 64 * 1024;
    private static readonly TimeSpan PerRecord = TimeSpan.FromMilliseconds(15);

    public static void Run(string[] args)
    {
        bool batches = args.Length < 2 || args[1] != "records";
        int rounds = args.Length > 2 ? int.Parse(args[2], CultureInfo.InvariantCulture) : 3;
        Console.WriteLine($"| {(batches ? "batches of 100, six at once" : "records, six at once")} | most live while records were left (left then) | live 1.5 s after the last | live 8 s after |");
        Console.WriteLine("|---|---:|---:|---:|");
        for (int round = 1; round <= rounds; round++)
        {
            (long most, long leftThen, long after, long later) = Measure(batches);
            Console.WriteLine($"| round {round} | {Mb(most)} ({Mb(leftThen)} left) | {Mb(after)} | {Mb(later)} |");
        }
    }

    private static (long Most, long LeftThen, long After, long Later) Measure(bool batches)
    {
        using EmbeddedKafkaCluster cluster = EmbeddedKafkaCluster.Start(1);
        cluster.SetGroupInitialRebalanceDelay(TimeSpan.Zero);
        cluster.CreateTopic("large", Partitions);
        using (IProducer<Null, byte[]> producer = new ProducerBuilder<Null, byte[]>(cluster.CreateProducerConfig()).Build())
        {
            var value = new byte[ValueBytes];
            for (int offset = 0; offset < PerPartition; offset++)
            {
                for (int p = 0; p < Partitions; p++)
                {
                    producer.Produce(new TopicPartition("large", p), new Message<Null, byte[]> { Value = value });
                }
            }

            producer.Flush(TimeSpan.FromMinutes(1));
        }

        long total = (long)Partitions * PerPartition;
        long handled = 0;
        using var done = new ManualResetEventSlim();
        long baseline = GC.GetTotalMemory(forceFullCollection: true);
        var builder = new HostApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        KafkaProtobufConsumerBuilder<Ignore, byte[]> consumer = builder.Services.AddKafkaProtobufConsumer<Ignore, byte[]>("memory", options =>
        {
            options.Consumer = cluster.CreateConsumerConfig("memory-" + Guid.NewGuid().ToString("N"));
            options.Consumer.EnableAutoCommit = null; // the hosted consumer owns offsets
            options.Topics.Add("large");
            options.MaxConcurrentHandlers = 6;
        });
        if (batches)
        {
            consumer.HandleBatch(async (batch, token) =>
            {
                await Task.Delay(PerRecord * batch.Count, token);
                Handled(batch.Count);
            });
        }
        else
        {
            consumer.Handle(async (_, token) =>
            {
                await Task.Delay(PerRecord, token);
                Handled(1);
            });
        }

        void Handled(int records)
        {
            if (Interlocked.Add(ref handled, records) == total)
            {
                done.Set();
            }
        }

        using IHost host = builder.Build();
        host.Start();
        long most = 0;
        long leftThen = 0;
        while (!done.Wait(TimeSpan.FromMilliseconds(250)))
        {
            long live = GC.GetTotalMemory(forceFullCollection: true) - baseline;
            if (live > most)
            {
                most = live;
                leftThen = (total - Interlocked.Read(ref handled)) * ValueBytes;
            }
        }

        Thread.Sleep(1_500);
        long after = GC.GetTotalMemory(forceFullCollection: true) - baseline;
        Thread.Sleep(6_500);
        long later = GC.GetTotalMemory(forceFullCollection: true) - baseline;
        host.StopAsync().GetAwaiter().GetResult();
        return (most, leftThen, after, later);
    }

    private static string Mb(long bytes) => (bytes / 1024.0 / 1024.0).ToString("N0", CultureInfo.InvariantCulture) + " MB";
}
