using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Linq;
using System.Text;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Redrive;
using KafkaProtobuf.Testing;

namespace KafkaProtobuf.Benchmarks.Tools;

/// <summary>
/// <c>redrive [records] [rounds] [signed]</c>: <see cref="DeadLetterRedrive"/> against a plain byte[] consume-and-produce copy
/// of the same dead-letter topic (assign from the beginning, produce each record to the target, flush), both on the
/// embedded cluster with the same idempotent producer settings, rounds alternating; records per second and the ratio.
/// Dead letters of 100-byte values with their headers (about 400 bytes each) on 16 partitions, within what the mock
/// cluster keeps of a partition (about 5 MB). With <c>signed</c>, the dead letters are signed and the redrive verifies
/// each one and signs its own block (<see cref="ProvenanceKeys"/>).
/// </summary>
internal static class RedriveThroughput
{
    /// <summary>Many partitions: the mock cluster keeps only about 5 MB of each partition's log.</summary>
    private const int Partitions = 16;

    public static void Run(string[] args)
    {
        int records = args.Length > 1 ? int.Parse(args[1], CultureInfo.InvariantCulture) : 100_000;
        int rounds = args.Length > 2 ? int.Parse(args[2], CultureInfo.InvariantCulture) : 3;
        ProvenanceKeys? keys = args.Length > 3 && args[3] == "signed" ? new ProvenanceKeys([Enumerable.Range(0, 32).Select(i => (byte)i).ToArray()]) : null;
        Console.WriteLine(keys is null ? "unsigned" : "signed: every dead letter verified, every redrive block signed");
        using EmbeddedKafkaCluster cluster = EmbeddedKafkaCluster.Start(1);
        cluster.CreateTopic("orders.dlq", Partitions);
        for (int round = 0; round < rounds; round++)
        {
            cluster.CreateTopic("copy-" + round, Partitions);
            cluster.CreateTopic("orders-" + round, Partitions);
        }

        WriteDeadLetters(cluster, records, new ProvenanceCodec(keys));
        var copy = new List<double>();
        var redrive = new List<double>();
        for (int round = 0; round < rounds; round++)
        {
            double copied = Copy(cluster, records, "copy-" + round);
            var clock = Stopwatch.StartNew();
            RedriveSummary summary = DeadLetterRedrive.Run(
                new ClientConfig { BootstrapServers = cluster.BootstrapServers },
                new RedriveOptions { DeadLetterTopic = "orders.dlq", GroupId = "bench-" + round, TargetTopic = "orders-" + round, ProvenanceKeys = keys });
            double redriven = summary.Written / clock.Elapsed.TotalSeconds;
            if (summary.Written != records)
            {
                throw new InvalidOperationException("redrive wrote " + summary.Written + " of " + records + ": " + summary);
            }

            copy.Add(copied);
            redrive.Add(redriven);
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"round {round + 1}: copy loop {copied:N0} records/s, redrive {redriven:N0} records/s, ratio {redriven / copied:F2}"));
        }

        double median(List<double> values) => values.Order().ElementAt(values.Count / 2);
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"median: copy loop {median(copy):N0} records/s, redrive {median(redrive):N0} records/s, ratio {median(redrive) / median(copy):F2} ({records:N0} records, {rounds} rounds)"));
    }

    private static void WriteDeadLetters(EmbeddedKafkaCluster cluster, int records, ProvenanceCodec codec)
    {
        using IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(cluster.CreateProducerConfig()).Build();
        var failure = new TimeoutException("the payment service did not answer");
        for (int i = 0; i < records; i++)
        {
            var record = new ConsumeResult<byte[], byte[]>
            {
                TopicPartitionOffset = new TopicPartitionOffset("orders", i % Partitions, i),
                Message = new Message<byte[], byte[]> { Key = Encoding.UTF8.GetBytes("order-" + i), Value = new byte[100], Headers = [] },
            };
            while (true)
            {
                try
                {
                    producer.Produce("orders.dlq", codec.ToDeadLetterMessage(record, failure));
                    break;
                }
                catch (ProduceException<byte[], byte[]> e) when (e.Error.Code == ErrorCode.Local_QueueFull)
                {
                    producer.Poll(TimeSpan.FromMilliseconds(50));
                }
            }
        }

        if (producer.Flush(TimeSpan.FromMinutes(5)) > 0)
        {
            throw new InvalidOperationException("the dead letters were not all written");
        }

        using IConsumer<byte[], byte[]> consumer = new ConsumerBuilder<byte[], byte[]>(cluster.CreateConsumerConfig()).Build();
        long written = Enumerable.Range(0, Partitions).Sum(p => consumer.QueryWatermarkOffsets(new TopicPartition("orders.dlq", p), TimeSpan.FromSeconds(30)).High.Value);
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{written:N0} dead letters in orders.dlq"));
    }

    /// <summary>The plain loop: what anyone would write without the package; records per second.</summary>
    private static double Copy(EmbeddedKafkaCluster cluster, int records, string target)
    {
        var clock = Stopwatch.StartNew();
        ProducerConfig producerConfig = cluster.CreateProducerConfig();
        using IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(producerConfig).Build();
        using IConsumer<byte[], byte[]> consumer = new ConsumerBuilder<byte[], byte[]>(cluster.CreateConsumerConfig()).Build();
        consumer.Assign(Enumerable.Range(0, Partitions).Select(p => new TopicPartitionOffset("orders.dlq", p, Offset.Beginning)));
        int copied = 0;
        while (copied < records)
        {
            ConsumeResult<byte[], byte[]>? record = consumer.Consume(TimeSpan.FromSeconds(10)) ?? throw new InvalidOperationException("the copy loop stalled after " + copied + " records");
            while (true)
            {
                try
                {
                    producer.Produce(target, new Message<byte[], byte[]> { Key = record.Message.Key, Value = record.Message.Value, Headers = record.Message.Headers });
                    break;
                }
                catch (ProduceException<byte[], byte[]> e) when (e.Error.Code == ErrorCode.Local_QueueFull)
                {
                    producer.Poll(TimeSpan.FromMilliseconds(50));
                }
            }

            copied++;
        }

        producer.Flush(TimeSpan.FromMinutes(5));
        return copied / clock.Elapsed.TotalSeconds;
    }
}
