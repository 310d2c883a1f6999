using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Framing;
using KafkaProtobuf.Tests.Support;
using Vectors.Telemetry.V1;
using Xunit;

namespace KafkaProtobuf.Tests.EndToEnd;

/// <summary>
/// A real producer and consumer (Confluent.Kafka over librdkafka) against the embedded cluster (or the real one named by
/// KAFKAPROTOBUF_BOOTSTRAP_SERVERS), with this package's
/// serializers and deserializers plugged in through the builder extensions. Every wait has a deadline.
/// </summary>
public sealed class EndToEndTests : IDisposable
{
    private static readonly TimeSpan Deadline = TimeSpan.FromSeconds(45);
    private static readonly SchemaIdentifier KeySchema = SchemaIdentifier.FromId(1);
    private static readonly SchemaIdentifier ValueSchema = SchemaIdentifier.FromId(2);

    private readonly TestKafka _cluster = new();

    public void Dispose() => _cluster.Dispose();

    private static Reading KeyFor(int i) => new() { SensorId = "sensor-" + (i % 97) };

    private static Device ValueFor(int i) => new()
    {
        Id = "device-" + i,
        Location = new Device.Types.Location { Lat = i * 0.001, Lon = -i * 0.002 },
        Labels = { ["seq"] = i.ToString(System.Globalization.CultureInfo.InvariantCulture) },
    };

    private IProducer<Reading, Device> TypedProducer(SchemaIdPlacement valuePlacement = SchemaIdPlacement.Prefix) =>
        new ProducerBuilder<Reading, Device>(_cluster.CreateProducerConfig())
            .SetProtobufKeySerializer(KeySchema)
            .SetProtobufValueSerializer(ValueSchema, new FramedSerializerOptions { SchemaIdPlacement = valuePlacement })
            .Build();

    private static IConsumer<Reading, Device> TypedConsumer(ConsumerConfig config) =>
        new ConsumerBuilder<Reading, Device>(config).SetProtobufKeyDeserializer().SetProtobufValueDeserializer().Build();

    /// <summary>Produces and returns, per partition, the values' sequence numbers in offset order.</summary>
    private Dictionary<int, List<int>> ProduceSequence(string topic, IEnumerable<int> sequence, SchemaIdPlacement placement = SchemaIdPlacement.Prefix)
    {
        var delivered = new List<(int Partition, long Offset, int Sequence)>();
        var errors = new List<string>();
        using (IProducer<Reading, Device> producer = TypedProducer(placement))
        {
            foreach (int i in sequence)
            {
                producer.Produce(topic, new Message<Reading, Device> { Key = KeyFor(i), Value = ValueFor(i) }, report =>
                {
                    lock (delivered)
                    {
                        if (report.Error.IsError)
                        {
                            errors.Add(report.Error.Reason);
                        }
                        else
                        {
                            delivered.Add((report.Partition.Value, report.Offset.Value, i));
                        }
                    }
                });
            }

            Assert.Equal(0, producer.Flush(Deadline));
        }

        Assert.Empty(errors);
        return delivered.GroupBy(d => d.Partition).ToDictionary(g => g.Key, g => g.OrderBy(d => d.Offset).Select(d => d.Sequence).ToList());
    }

    private static int SequenceOf(Device value) => int.Parse(value.Labels["seq"], System.Globalization.CultureInfo.InvariantCulture);

    [Fact]
    public void TenThousandRecordsOverThreePartitions_ArriveExactlyOnceAndInOrderPerPartition()
    {
        const int count = 10_000;
        string topic = _cluster.CreateTopic("ten-thousand", 3);
        Dictionary<int, List<int>> produced = ProduceSequence(topic, Enumerable.Range(0, count));
        Assert.Equal(3, produced.Count); // the keys really spread over all partitions

        var received = new Dictionary<int, List<int>>();
        using IConsumer<Reading, Device> consumer = TypedConsumer(_cluster.CreateConsumerConfig());
        consumer.Assign(Enumerable.Range(0, 3).Select(p => new TopicPartitionOffset(topic, p, Offset.Beginning)));
        int total = 0;
        DateTime deadline = DateTime.UtcNow + Deadline;
        while (total < count && DateTime.UtcNow < deadline)
        {
            ConsumeResult<Reading, Device>? result = consumer.Consume(TimeSpan.FromMilliseconds(100));
            if (result is null)
            {
                continue;
            }

            int sequence = SequenceOf(result.Message.Value);
            Assert.Equal(KeyFor(sequence), result.Message.Key);
            Assert.Equal(ValueFor(sequence), result.Message.Value);
            received.TryAdd(result.Partition.Value, []);
            received[result.Partition.Value].Add(sequence);
            total++;
        }

        Assert.Equal(count, total);
        Assert.Equal(produced.Keys.Order(), received.Keys.Order());
        foreach (int partition in produced.Keys)
        {
            Assert.Equal(produced[partition], received[partition]);
        }

        Assert.Null(consumer.Consume(TimeSpan.FromMilliseconds(300))); // and nothing more
    }

    [Fact]
    public void HeaderIdsAndPrefixIdsOnOneTopic_WithTombstones_AllDeserialize()
    {
        string topic = _cluster.CreateTopic("mixed", 1);
        ProduceSequence(topic, [0, 1, 2], SchemaIdPlacement.Prefix);
        ProduceSequence(topic, [3, 4], SchemaIdPlacement.Header);
        using (IProducer<Reading, Device> producer = TypedProducer(SchemaIdPlacement.Header))
        {
            producer.Produce(topic, new Message<Reading, Device> { Key = KeyFor(5), Value = null! });
            Assert.Equal(0, producer.Flush(Deadline));
        }

        ProduceSequence(topic, [6], SchemaIdPlacement.Prefix);

        using IConsumer<Reading, Device> consumer = TypedConsumer(_cluster.CreateConsumerConfig());
        consumer.Assign(new TopicPartitionOffset(topic, 0, Offset.Beginning));
        var received = new List<ConsumeResult<Reading, Device>>();
        DateTime deadline = DateTime.UtcNow + Deadline;
        while (received.Count < 7 && DateTime.UtcNow < deadline)
        {
            if (consumer.Consume(TimeSpan.FromMilliseconds(100)) is { } result)
            {
                received.Add(result);
            }
        }

        Assert.Equal(7, received.Count);
        Assert.Null(received[5].Message.Value); // the tombstone
        Assert.Equal(KeyFor(5), received[5].Message.Key);
        foreach (int i in new[] { 0, 1, 2, 3, 4, 6 })
        {
            Assert.Equal(ValueFor(i), received[i].Message.Value);
            bool hasHeader = received[i].Message.Headers.TryGetLastBytes(SchemaIdHeaderNames.Value, out _);
            Assert.Equal(i is 3 or 4, hasHeader);
        }
    }

    [Fact]
    public void PoisonRecords_GoToTheDeadLetterTopicByteForByte_AndNoGoodRecordIsLostOrDuplicated()
    {
        const int good = 1_400;
        string topic = _cluster.CreateTopic("orders", 3);
        string deadLetterTopic = _cluster.CreateTopic("orders.dlq", 1);

        // 1% poison: every fault class, interleaved with good records.
        var poison = new List<PoisonRecord>();
        using (IProducer<byte[], byte[]> raw = new ProducerBuilder<byte[], byte[]>(_cluster.CreateProducerConfig()).Build())
        using (IProducer<Reading, Device> typed = TypedProducer())
        {
            for (int i = 0; i < good; i++)
            {
                typed.Produce(topic, new Message<Reading, Device> { Key = KeyFor(i), Value = ValueFor(i) });
                if (i % 100 == 50)
                {
                    foreach (PoisonRecord p in PoisonRecords(i))
                    {
                        poison.Add(p);
                        raw.Produce(topic, p.ToMessage());
                    }
                }
            }

            Assert.Equal(0, typed.Flush(Deadline));
            Assert.Equal(0, raw.Flush(Deadline));
        }

        // The consumer loop the README recommends.
        var goodReceived = new List<int>();
        int deadLettered = 0;
        using (IProducer<byte[], byte[]> deadLetters = new ProducerBuilder<byte[], byte[]>(_cluster.CreateProducerConfig()).Build())
        using (IConsumer<Reading, Device> consumer = TypedConsumer(_cluster.CreateConsumerConfig()))
        {
            consumer.Subscribe(topic);
            DateTime deadline = DateTime.UtcNow + Deadline;
            while (goodReceived.Count + deadLettered < good + poison.Count && DateTime.UtcNow < deadline)
            {
                try
                {
                    if (consumer.Consume(TimeSpan.FromMilliseconds(100)) is { } result)
                    {
                        goodReceived.Add(SequenceOf(result.Message.Value));
                        consumer.Commit(result);
                    }
                }
                catch (ConsumeException e) when (e.IsDeserializationFailure())
                {
                    consumer.DeadLetter(e, deadLetters, deadLetterTopic, TimeSpan.FromSeconds(10), DeadLetterOffsetHandling.StoreAndCommit);
                    deadLettered++;
                }
            }

            consumer.Close();
        }

        Assert.Equal(Enumerable.Range(0, good), goodReceived.Order());
        Assert.Equal(poison.Count, deadLettered);

        // Every poison record is in the dead-letter topic, key, value and headers byte for byte, with its error code.
        List<ConsumeResult<byte[], byte[]>> letters = ReadAll(deadLetterTopic, poison.Count);
        Assert.Equal(poison.Count, letters.Count);
        var byOrigin = letters.ToDictionary(l => Encoding.UTF8.GetString(l.Message.Headers.GetLastBytes("origin")));
        foreach (PoisonRecord p in poison)
        {
            ConsumeResult<byte[], byte[]> letter = byOrigin[Encoding.UTF8.GetString(p.ToMessage().Headers.GetLastBytes("origin"))];
            Assert.Equal(p.Key, letter.Message.Key);
            Assert.Equal(p.Value, letter.Message.Value);
            Headers original = p.ToMessage().Headers;
            Assert.Equal(
                original.Select(h => (h.Key, Convert.ToHexString(h.GetValueBytes()))),
                letter.Message.Headers.Take(original.Count).Select(h => (h.Key, Convert.ToHexString(h.GetValueBytes()))));
            Assert.Equal(p.Code.ToString(), Encoding.UTF8.GetString(letter.Message.Headers.GetLastBytes(DeadLetterHeaderNames.ErrorCode)));
            Assert.Equal(p.Component == MessageComponentType.Key ? "key" : "value", Encoding.UTF8.GetString(letter.Message.Headers.GetLastBytes(DeadLetterHeaderNames.Component)));
            Assert.Equal(topic, Encoding.UTF8.GetString(letter.Message.Headers.GetLastBytes(DeadLetterHeaderNames.SourceTopic)));
        }
    }

    [Fact]
    public void ConsumerRestartInTheMiddle_LosesAndDuplicatesNothing()
    {
        const int count = 2_000;
        string topic = _cluster.CreateTopic("restart", 3);
        ProduceSequence(topic, Enumerable.Range(0, count));
        string group = "restart-" + Guid.NewGuid().ToString("N");
        var received = new List<int>();

        ConsumeInGroup(topic, group, received, stopAfter: count / 2);
        Assert.Equal(count / 2, received.Count);
        ConsumeInGroup(topic, group, received, stopAfter: count);

        Assert.Equal(Enumerable.Range(0, count), received.Order());
    }

    private void ConsumeInGroup(string topic, string group, List<int> received, int stopAfter)
    {
        ConsumerConfig config = _cluster.CreateConsumerConfig(group);
        config.EnableAutoOffsetStore = false; // store only what was processed
        using IConsumer<Reading, Device> consumer = TypedConsumer(config);
        consumer.Subscribe(topic);
        DateTime deadline = DateTime.UtcNow + Deadline;
        while (received.Count < stopAfter && DateTime.UtcNow < deadline)
        {
            if (consumer.Consume(TimeSpan.FromMilliseconds(100)) is { } result)
            {
                received.Add(SequenceOf(result.Message.Value));
                consumer.StoreOffset(result);
            }
        }

        // Commit exactly what was processed, then leave the group.
        consumer.Commit();
        consumer.Close();
    }

    private static IEnumerable<PoisonRecord> PoisonRecords(int seed)
    {
        // Each batch carries every fault class; 14 poison records per 100 good ones would be 14%, so take one class per
        // batch in rotation and put the whole set in the first batch.
        IReadOnlyList<PoisonRecord> all = PoisonRecord.All(seed);
        return seed == 50 ? all : [all[(seed / 100) % all.Count]];
    }

    private List<ConsumeResult<byte[], byte[]>> ReadAll(string topic, int expected)
    {
        using IConsumer<byte[], byte[]> consumer = new ConsumerBuilder<byte[], byte[]>(_cluster.CreateConsumerConfig()).Build();
        consumer.Assign(new TopicPartitionOffset(topic, 0, Offset.Beginning));
        var all = new List<ConsumeResult<byte[], byte[]>>();
        DateTime deadline = DateTime.UtcNow + Deadline;
        while (all.Count < expected && DateTime.UtcNow < deadline)
        {
            if (consumer.Consume(TimeSpan.FromMilliseconds(100)) is { } result)
            {
                all.Add(result);
            }
        }

        return all;
    }
}
