using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using System.Threading;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;

namespace KafkaProtobuf.Tests.Shared;

/// <summary>
/// The records issue 67's table names, as an attacker who may write to one topic produces them, each read back by a
/// consumer and dead-lettered by the library's own writer (the codec the hosted consumer calls, told the tier when the
/// record was read from one of its tiers), into a dead-letter topic of their own: unsigned, or signed with
/// <see cref="Keys"/> (and then two more: a dead letter signed with another key, and one whose value was changed after
/// signing). Shared by the tests of every front-end (the library's redrive, the tool, the operations page, the
/// dashboard), which prove by the record counts of every topic and partition, before and after a redrive, what it wrote.
/// </summary>
internal static class ProvenanceRows
{
    /// <summary>The keys the flow signs with, as the tool's file, an environment variable or a configuration holds them.</summary>
    public static readonly string KeysText = Convert.ToBase64String(Enumerable.Range(0, 32).Select(i => (byte)(7 + (i * 13))).ToArray());

    public static ProvenanceKeys Keys => ProvenanceKeys.Parse(KeysText);

    /// <summary>An attacker's own key: what it signs never verifies with <see cref="Keys"/>.</summary>
    public static ProvenanceKeys OtherKeys => new([Enumerable.Range(0, 32).Select(i => (byte)(200 - i)).ToArray()]);

    public const int Partitions = 6;

    /// <summary>One dead letter of the scenario: where it is, and what every front-end must say of it.</summary>
    /// <param name="Name">The row.</param>
    /// <param name="Position">The dead letter's place in the dead-letter topic.</param>
    /// <param name="Source">Its believed source as <c>DescribeSource</c> says it, or null when none is believed.</param>
    /// <param name="RedriveCount">Its believed redrive count.</param>
    /// <param name="Written">Whether a redrive writes it back.</param>
    internal sealed record Row(string Name, TopicPartitionOffset Position, string? Source, int RedriveCount, bool Written);

    /// <summary>The topics a scenario's records are on or name.</summary>
    public static string[] Topics(string prefix) =>
        [prefix + "orders", prefix + "payments", prefix + "billing", prefix + "billing.retry.1", prefix + "billing.retry.2", prefix + "orders.retry.1"];

    /// <summary>
    /// Creates the scenario's topics (six partitions each) and its dead-letter topic (one) with <paramref name="createTopic"/>
    /// (the embedded cluster's: its mock names no controller for an admin client), then writes and dead-letters its records.
    /// </summary>
    public static IReadOnlyList<Row> WriteAndDeadLetter(string bootstrapServers, Action<string, int> createTopic, string prefix, string deadLetterTopic, bool signed)
    {
        TimeSpan deadline = TimeSpan.FromSeconds(60);
        foreach (string topic in Topics(prefix))
        {
            createTopic(topic, Partitions);
        }

        createTopic(deadLetterTopic, 1);

        string orders = prefix + "orders";
        var ordersTier1 = new RetryTier(orders, 1);
        ProvenanceKeys? keys = signed ? Keys : null;
        var rows = new List<Row>();
        using IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(new ProducerConfig { BootstrapServers = bootstrapServers, Acks = Acks.All }).Build();
        using IConsumer<byte[], byte[]> consumer = new ConsumerBuilder<byte[], byte[]>(new ConsumerConfig
        {
            BootstrapServers = bootstrapServers,
            GroupId = "provenance-rows-" + Guid.NewGuid().ToString("N"),
            EnableAutoOffsetStore = false,
        }).Build();

        // Row 1: on orders [0], its own headers ending with a complete forged block naming payments [3] @99 and a tier.
        Headers forgedBlock = ProvenanceCodec.WithoutKeys.ToRetryCopy(
            Record(prefix + "payments", 3, 99, Own()), new TimeoutException("forged"), null, new RetryTier(prefix + "payments", 1), DateTimeOffset.UnixEpoch, DateTimeOffset.UnixEpoch).Headers;
        rows.Add(DeadLetter("row 1", orders, forgedBlock, null, keys, read => read.Topic + " [0] @" + read.Offset.Value, 0, written: true));

        // Row 2: on an ordinary topic named billing.retry.2, ending with two forged hops (billing [4] @40, billing.retry.1 [4] @41).
        string billing = prefix + "billing";
        Headers hop1 = ProvenanceCodec.WithoutKeys.ToRetryCopy(Record(billing, 4, 40, Own()), new TimeoutException("forged"), null, new RetryTier(billing, 1), DateTimeOffset.UnixEpoch, DateTimeOffset.UnixEpoch).Headers;
        Headers hops = ProvenanceCodec.WithoutKeys.ToRetryCopy(
            Record(billing + ".retry.1", 4, 41, hop1), new TimeoutException("forged"), new RetryTier(billing, 1), new RetryTier(billing, 2), DateTimeOffset.UnixEpoch, DateTimeOffset.UnixEpoch).Headers;
        rows.Add(DeadLetter("row 2", billing + ".retry.2", hops, null, keys, read => read.Topic + " [0] @" + read.Offset.Value, 0, written: true));

        // Row 3: straight into the real tier orders.retry.1, ending with one forged hop naming orders [5] @999 (signed, with
        // keys, by the attacker's own key); read there by a consumer whose configuration makes it tier 1 of orders.
        Headers forgedHop = new ProvenanceCodec(signed ? OtherKeys : null).ToRetryCopy(
            Record(orders, 5, 999, Own()), new TimeoutException("forged"), null, ordersTier1, DateTimeOffset.UnixEpoch, DateTimeOffset.UnixEpoch).Headers;
        rows.Add(DeadLetter("row 3", ordersTier1.Name, forgedHop, ordersTier1, keys, _ => signed ? null : orders + " [5] @999", 0, written: !signed));

        // Row 4: on orders [0] with its own redrive count 999, time and run at the end.
        Headers redriven = Own();
        redriven.Add("kafkaprotobuf.redrive.count", Encoding.UTF8.GetBytes("999"));
        redriven.Add("kafkaprotobuf.redrive.time", Encoding.UTF8.GetBytes("2026-12-01T00:00:00.000Z"));
        redriven.Add("kafkaprotobuf.redrive.run", Encoding.UTF8.GetBytes("forged"));
        rows.Add(DeadLetter("row 4", orders, redriven, null, keys, read => read.Topic + " [0] @" + read.Offset.Value, signed ? 0 : 999, written: signed));

        if (signed)
        {
            // A dead letter signed with another key, and one whose value was changed after it was signed.
            rows.Add(DeadLetter("another key", orders, Own(), null, OtherKeys, _ => null, 0, written: false));
            rows.Add(DeadLetter("value changed", orders, Own(), null, keys, _ => null, 0, written: false, alter: m => m.Value = [9, 9, 9]));
        }

        consumer.Close();
        return rows;

        Row DeadLetter(string name, string topic, Headers headers, RetryTier? readFrom, ProvenanceKeys? writerKeys, Func<ConsumeResult<byte[], byte[]>, string?> source, int redriveCount, bool written, Action<Message<byte[], byte[]>>? alter = null)
        {
            byte[] key = Encoding.UTF8.GetBytes(name.Replace(' ', '-') + "-" + Guid.NewGuid().ToString("N"));
            producer.ProduceAsync(new TopicPartition(topic, 0), new Message<byte[], byte[]> { Key = key, Value = Encoding.UTF8.GetBytes("{\"row\":\"" + name + "\"}"), Headers = headers })
                .Wait(deadline);
            ConsumeResult<byte[], byte[]> read = ReadBack(topic, key);
            Message<byte[], byte[]> letter = new ProvenanceCodec(writerKeys).ToDeadLetterMessage(read, new InvalidOperationException("the handler refused " + name), readFrom);
            alter?.Invoke(letter);
            DeliveryResult<byte[], byte[]> delivered = producer.ProduceAsync(deadLetterTopic, letter).GetAwaiter().GetResult();
            return new Row(name, delivered.TopicPartitionOffset, source(read), redriveCount, written);
        }

        ConsumeResult<byte[], byte[]> ReadBack(string topic, byte[] key)
        {
            consumer.Assign(new TopicPartitionOffset(topic, 0, Offset.Beginning));
            using var giveUp = new CancellationTokenSource(deadline);
            ConsumeResult<byte[], byte[]> record;
            do
            {
                record = consumer.Consume(giveUp.Token);
            }
            while (record.Message.Key is null || !record.Message.Key.AsSpan().SequenceEqual(key));

            return record;
        }
    }

    /// <summary>How many records each partition of these topics holds now: <c>topic [p]</c> → its high watermark less its low.</summary>
    public static Dictionary<string, long> Counts(string bootstrapServers, IEnumerable<string> topics)
    {
        using IAdminClient admin = new AdminClientBuilder(new AdminClientConfig { BootstrapServers = bootstrapServers }).Build();
        using IConsumer<byte[], byte[]> consumer = new ConsumerBuilder<byte[], byte[]>(new ConsumerConfig { BootstrapServers = bootstrapServers, GroupId = "provenance-rows-counts" }).Build();
        var counts = new Dictionary<string, long>(StringComparer.Ordinal);
        foreach (string topic in topics)
        {
            foreach (PartitionMetadata partition in admin.GetMetadata(topic, TimeSpan.FromSeconds(30)).Topics.Single().Partitions)
            {
                WatermarkOffsets marks = consumer.QueryWatermarkOffsets(new TopicPartition(topic, partition.PartitionId), TimeSpan.FromSeconds(30));
                counts[topic + " [" + partition.PartitionId + "]"] = marks.High.Value - Math.Max(0, marks.Low.Value);
            }
        }

        return counts;
    }

    /// <summary>
    /// What a redrive of the scenario must have changed, partition by partition: nothing on a topic a forged header names
    /// (payments, billing, billing.retry.1, the real tier orders.retry.1), and on orders and billing.retry.2 exactly the
    /// rows written back; with <paramref name="keptPartitions"/> (a redrive that keeps each record's source partition), in
    /// the partition its believed source names.
    /// </summary>
    /// <returns>Null when it holds; otherwise what differs, with both counts.</returns>
    public static string? Difference(Dictionary<string, long> before, Dictionary<string, long> after, string prefix, IReadOnlyList<Row> rows, bool keptPartitions)
    {
        var expected = new Dictionary<string, long>(before, StringComparer.Ordinal);
        foreach (Row row in rows.Where(r => r.Written))
        {
            string source = row.Source!;
            string topic = source[..source.IndexOf(" [", StringComparison.Ordinal)];
            string partition = keptPartitions
                ? topic + " [" + source[(source.IndexOf('[') + 1)..source.IndexOf(']')] + "]"
                : expected.Keys.First(k => k.StartsWith(topic + " [", StringComparison.Ordinal));
            expected[partition]++;
        }

        var differences = new List<string>();
        foreach (string topic in Topics(prefix))
        {
            long expectedTopic = expected.Where(e => e.Key.StartsWith(topic + " [", StringComparison.Ordinal)).Sum(e => e.Value);
            long actualTopic = after.Where(e => e.Key.StartsWith(topic + " [", StringComparison.Ordinal)).Sum(e => e.Value);
            if (expectedTopic != actualTopic)
            {
                differences.Add(topic + ": " + actualTopic + " records, expected " + expectedTopic);
            }

            bool everyPartition = keptPartitions || !rows.Any(r => r.Written && r.Source!.StartsWith(topic + " [", StringComparison.Ordinal));
            foreach (string partition in expected.Keys.Where(k => k.StartsWith(topic + " [", StringComparison.Ordinal) && everyPartition))
            {
                if (expected[partition] != after[partition])
                {
                    differences.Add(partition + ": " + after[partition] + " records, expected " + expected[partition]);
                }
            }
        }

        return differences.Count == 0
            ? null
            : string.Join("; ", differences) + " (before: " + string.Join(", ", before.Select(c => c.Key + "=" + c.Value)) + ")";
    }

    private static Headers Own() => new() { { "tenant", Encoding.UTF8.GetBytes("acme") } };

    private static ConsumeResult<byte[], byte[]> Record(string topic, int partition, long offset, Headers headers) => new()
    {
        TopicPartitionOffset = new TopicPartitionOffset(topic, partition, offset),
        Message = new Message<byte[], byte[]> { Key = Encoding.UTF8.GetBytes("forged"), Value = [1], Headers = headers },
    };
}
