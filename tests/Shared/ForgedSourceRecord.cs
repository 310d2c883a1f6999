using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using Confluent.Kafka;

namespace KafkaProtobuf.Tests.Shared;

/// <summary>
/// The record an attacker who may write to a source topic writes to steer a redrive: it carries this package's own
/// dead-letter headers, naming <see cref="ForgedTopic"/> as its source (and a forged partition, offset and error code,
/// and a forged retry hop), before a header of its own. Shared by the tests of every front-end (the library, the tool,
/// the operations page, the dashboard), which prove by the record counts of every topic, before and after a redrive,
/// that it goes back where it really came from.
/// </summary>
internal static class ForgedSourceRecord
{
    /// <summary>The topic the forged headers name.</summary>
    public const string ForgedTopic = "payments";

    /// <summary>The record's headers: the forged ones first, then one of its own.</summary>
    public static Headers Headers()
    {
        var headers = new Headers();
        foreach ((string name, string value) in new[]
        {
            ("kafkaprotobuf.source.topic", ForgedTopic),
            ("kafkaprotobuf.error.code", "UnknownMagicByte"),
            ("kafkaprotobuf.error.component", "key"),
            ("kafkaprotobuf.source.topic", ForgedTopic),
            ("kafkaprotobuf.source.partition", "7"),
            ("kafkaprotobuf.source.offset", "99"),
            ("kafkaprotobuf.retry.tier", "1"),
            ("kafkaprotobuf.redrive.count", "0"),
            ("tenant", "acme"),
        })
        {
            headers.Add(name, Encoding.UTF8.GetBytes(value));
        }

        return headers;
    }

    /// <summary>
    /// Writes the forged record to partition 0 of <paramref name="topic"/> (its value no frame: a poison record), reads it
    /// back with a consumer and dead-letters it with the library's own writer, as a handler's failure, as the
    /// recommended loop does.
    /// </summary>
    public static void WriteAndDeadLetter(string bootstrapServers, string topic, string deadLetterTopic)
    {
        TimeSpan deadline = TimeSpan.FromSeconds(60);
        using IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(new ProducerConfig { BootstrapServers = bootstrapServers }).Build();
        producer.ProduceAsync(new TopicPartition(topic, 0), new Message<byte[], byte[]> { Key = Encoding.UTF8.GetBytes("forged"), Value = Encoding.UTF8.GetBytes("{\"to\":\"payments\"}"), Headers = Headers() })
            .Wait(deadline);
        using IConsumer<byte[], byte[]> consumer = new ConsumerBuilder<byte[], byte[]>(new ConsumerConfig
        {
            BootstrapServers = bootstrapServers,
            GroupId = "forged-source-" + Guid.NewGuid().ToString("N"),
            AutoOffsetReset = AutoOffsetReset.Earliest,
            EnableAutoOffsetStore = false,
        }).Build();
        consumer.Assign(new TopicPartitionOffset(topic, 0, Offset.Beginning));
        using var giveUp = new System.Threading.CancellationTokenSource(deadline);
        ConsumeResult<byte[], byte[]> record;
        do
        {
            record = consumer.Consume(giveUp.Token);
        }
        while (record.Message.Key is null || Encoding.UTF8.GetString(record.Message.Key) != "forged");

        KafkaProtobuf.DeadLetters.DeadLetterExtensions.DeadLetter(
            consumer, record, new InvalidOperationException("the handler refused it"), producer, deadLetterTopic, deadline, KafkaProtobuf.DeadLetters.DeadLetterOffsetHandling.Store);
        consumer.Close();
    }

    /// <summary>How many records each topic holds now (every partition's high watermark less its low).</summary>
    public static Dictionary<string, long> Counts(string bootstrapServers, params string[] topics)
    {
        using IAdminClient admin = new AdminClientBuilder(new AdminClientConfig { BootstrapServers = bootstrapServers }).Build();
        using IConsumer<byte[], byte[]> consumer = new ConsumerBuilder<byte[], byte[]>(new ConsumerConfig { BootstrapServers = bootstrapServers, GroupId = "forged-source-counts" }).Build();
        var counts = new Dictionary<string, long>(StringComparer.Ordinal);
        foreach (string topic in topics)
        {
            TopicMetadata metadata = admin.GetMetadata(topic, TimeSpan.FromSeconds(30)).Topics.Single();
            counts[topic] = metadata.Partitions.Sum(p =>
            {
                WatermarkOffsets marks = consumer.QueryWatermarkOffsets(new TopicPartition(topic, p.PartitionId), TimeSpan.FromSeconds(30));
                return marks.High.Value - Math.Max(0, marks.Low.Value);
            });
        }

        return counts;
    }

    /// <summary>The counts as one line, for an assertion's message.</summary>
    public static string Describe(Dictionary<string, long> counts) => string.Join(", ", counts.Select(c => c.Key + "=" + c.Value));
}
