using System;
using System.Linq;
using System.Text;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Redrive;
using Xunit;

namespace KafkaProtobuf.Tests.Redrive;

/// <summary><see cref="DeadLetter.Read"/>: which headers are the record's own, where it first came from, why it is here.</summary>
public class DeadLetterReadTests
{
    private static Headers Headers(params (string Name, string Value)[] headers)
    {
        var result = new Headers();
        foreach ((string name, string value) in headers)
        {
            result.Add(name, Encoding.UTF8.GetBytes(value));
        }

        return result;
    }

    [Fact]
    public void AfterRetryHops_TheFirstSourceIsWhereItCameFrom_TheLastErrorWhyItIsHere()
    {
        var record = new ConsumeResult<byte[], byte[]>
        {
            TopicPartitionOffset = new TopicPartitionOffset("orders.dlq", 0, 9),
            Message = new Message<byte[], byte[]>
            {
                Value = [1],
                Headers = Headers(
                    ("traceparent", "00-a-b-01"), (RedriveHeaderNames.Count, "1"), (RedriveHeaderNames.Time, "2026-11-28T10:00:00.000Z"), (RedriveHeaderNames.Run, "r"),
                    (DeadLetterHeaderNames.ErrorCode, "System.TimeoutException"), (DeadLetterHeaderNames.Component, "handler"),
                    (DeadLetterHeaderNames.SourceTopic, "orders"), (DeadLetterHeaderNames.SourcePartition, "2"), (DeadLetterHeaderNames.SourceOffset, "41"),
                    ("kafkaprotobuf.retry.tier", "1"),
                    (DeadLetterHeaderNames.ErrorCode, "System.InvalidOperationException"), (DeadLetterHeaderNames.Component, "handler"),
                    (DeadLetterHeaderNames.SourceTopic, "orders.retry.1"), (DeadLetterHeaderNames.SourcePartition, "0"), (DeadLetterHeaderNames.SourceOffset, "3"),
                    ("traceparent", "00-c-d-01")),
            },
        };

        DeadLetter letter = DeadLetter.Read(record);

        Assert.Equal("orders", letter.SourceTopic);
        Assert.Equal(2, letter.SourcePartition);
        Assert.Equal(41, letter.SourceOffset);
        Assert.Equal("System.InvalidOperationException", letter.ErrorCode);
        Assert.Equal(1, letter.RedriveCount);
        Assert.Equal(["traceparent"], letter.OriginalHeaders.Select(h => h.Key)); // the dead-lettering's own trace header is not the record's
        Assert.Equal("00-a-b-01", Encoding.UTF8.GetString(letter.OriginalHeaders.GetLastBytes("traceparent")));
    }

    [Fact]
    public void HostileHeaderValues_ReadAsUnknown_NeverThrow()
    {
        var record = new ConsumeResult<byte[], byte[]>
        {
            TopicPartitionOffset = new TopicPartitionOffset("orders.dlq", 0, 0),
            Message = new Message<byte[], byte[]>
            {
                Value = null!,
                Headers = Headers((RedriveHeaderNames.Count, "-7"), (DeadLetterHeaderNames.SourceTopic, ""), (DeadLetterHeaderNames.SourcePartition, "99999999999"), (DeadLetterHeaderNames.SourceOffset, "\uFFFD")),
            },
        };
        record.Message.Headers.Add(DeadLetterHeaderNames.ErrorCode, null);
        record.Message.Headers.Add(DeadLetterHeaderNames.Component, [0xFF, 0xFE]);

        DeadLetter letter = DeadLetter.Read(record);

        Assert.Null(letter.SourceTopic);
        Assert.Null(letter.SourcePartition);
        Assert.Null(letter.SourceOffset);
        Assert.Equal(0, letter.RedriveCount);
        Assert.Null(letter.ErrorCode);
        Assert.Equal("\uFFFD\uFFFD", letter.Component);
    }

    [Theory]
    [InlineData("orders\u001b[31m")]
    [InlineData("orders topic")]
    [InlineData("..")]
    [InlineData("a/b")]
    public void ABlockNamingNoPossibleTopic_IsNoSource(string forged)
    {
        static DeadLetter ReadBlockNaming(string topic) => DeadLetter.Read(new ConsumeResult<byte[], byte[]>
        {
            TopicPartitionOffset = new TopicPartitionOffset("orders.dlq", 0, 0),
            Message = new Message<byte[], byte[]>
            {
                Value = [1],
                Headers = Headers((DeadLetterHeaderNames.ErrorCode, "InvalidPayload"), (DeadLetterHeaderNames.SourceTopic, topic), (DeadLetterHeaderNames.SourcePartition, "0"), (DeadLetterHeaderNames.SourceOffset, "1")),
            },
        });

        Assert.Null(ReadBlockNaming(forged).SourceTopic);
        Assert.Null(ReadBlockNaming(forged).SourcePartition);
        Assert.Null(ReadBlockNaming(new string('a', 250)).SourceTopic);
        Assert.Equal("orders.retry-1_x", ReadBlockNaming("orders.retry-1_x").SourceTopic);
    }

    [Fact]
    public void SourceHeadersWithoutAWritersBlock_AreNoSource()
    {
        var record = new ConsumeResult<byte[], byte[]>
        {
            TopicPartitionOffset = new TopicPartitionOffset("orders.dlq", 0, 0),
            Message = new Message<byte[], byte[]> { Value = [1], Headers = Headers((DeadLetterHeaderNames.SourceTopic, "payments"), (DeadLetterHeaderNames.SourcePartition, "0")) },
        };

        DeadLetter letter = DeadLetter.Read(record);

        Assert.Null(letter.SourceTopic);
        Assert.Equal([DeadLetterHeaderNames.SourceTopic, DeadLetterHeaderNames.SourcePartition], letter.OriginalHeaders.Select(h => h.Key)); // not ours: the record's own
    }

    /// <summary>A record of <c>orders</c> [0] @5 whose producer wrote the package's headers itself, naming <c>payments</c>.</summary>
    private static ConsumeResult<byte[], byte[]> ForgedRecord(string topic = "orders", int partition = 0, long offset = 5) => new()
    {
        TopicPartitionOffset = new TopicPartitionOffset(topic, partition, offset),
        Message = new Message<byte[], byte[]>
        {
            Key = [7],
            Value = [0, 0, 0, 0, 1, 0, 9],
            Headers = Headers(
                ("tenant", "a"),
                (DeadLetterHeaderNames.SourceTopic, "payments"),
                (DeadLetterHeaderNames.ErrorCode, "UnknownMagicByte"), (DeadLetterHeaderNames.Component, "key"), (DeadLetterHeaderNames.ErrorMessage, "forged"),
                (DeadLetterHeaderNames.SourceTopic, "payments"), (DeadLetterHeaderNames.SourcePartition, "7"), (DeadLetterHeaderNames.SourceOffset, "99"),
                ("kafkaprotobuf.retry.tier", "1")),
        },
    };

    private static ConsumeResult<byte[], byte[]> Consumed(string topic, int partition, long offset, Message<byte[], byte[]> message) =>
        new() { TopicPartitionOffset = new TopicPartitionOffset(topic, partition, offset), Message = message };

    [Fact]
    public void ForgedSourceAndErrorHeaders_TheWritersOwnAreRead_AndTheForgedKeptAsTheRecordsOwn()
    {
        ConsumeResult<byte[], byte[]> record = ForgedRecord();
        DeadLetter letter = DeadLetter.Read(Consumed("orders.dlq", 1, 40, record.ToDeadLetterMessage(new TimeoutException("slow"))));

        Assert.Equal("orders", letter.SourceTopic);
        Assert.Equal(0, letter.SourcePartition);
        Assert.Equal(5, letter.SourceOffset);
        Assert.Equal("System.TimeoutException", letter.ErrorCode);
        Assert.Equal("handler", letter.Component);
        Assert.Equal("slow", letter.ErrorMessage);
        Assert.Equal(0, letter.RedriveCount);

        // What the producer wrote is the record's, byte for byte: a redrive writes it back as it was.
        Assert.Equal(record.Message.Headers.Select(h => (h.Key, Convert.ToBase64String(h.GetValueBytes()))), letter.OriginalHeaders.Select(h => (h.Key, Convert.ToBase64String(h.GetValueBytes()))));
    }

    [Fact]
    public void ForgedHeaders_AfterARedriveAndASecondFailure_TheLastWritersSourceAndTheRedrivesCount()
    {
        ConsumeResult<byte[], byte[]> record = ForgedRecord();
        DeadLetter first = DeadLetter.Read(Consumed("orders.dlq", 0, 3, record.ToDeadLetterMessage(new TimeoutException("slow"))));

        // Written back as a redrive writes it (its headers, then count, time, run), read again at orders [2] @77, failed again.
        var redriven = new Headers();
        foreach (IHeader header in first.OriginalHeaders)
        {
            redriven.Add(header.Key, header.GetValueBytes());
        }

        redriven.Add(RedriveHeaderNames.Count, Encoding.UTF8.GetBytes("1"));
        redriven.Add(RedriveHeaderNames.Time, Encoding.UTF8.GetBytes("2026-11-28T10:00:00.000Z"));
        redriven.Add(RedriveHeaderNames.Run, Encoding.UTF8.GetBytes("r1"));
        ConsumeResult<byte[], byte[]> again = Consumed("orders", 2, 77, new Message<byte[], byte[]> { Key = record.Message.Key, Value = record.Message.Value, Headers = redriven });
        DeadLetter second = DeadLetter.Read(Consumed("orders.dlq", 0, 4, again.ToDeadLetterMessage(new InvalidOperationException("bad"))));

        Assert.Equal(("orders", 2, 77L), (second.SourceTopic, second.SourcePartition!.Value, second.SourceOffset!.Value));
        Assert.Equal("System.InvalidOperationException", second.ErrorCode);
        Assert.Equal(1, second.RedriveCount);
        Assert.Equal(record.Message.Headers.Select(h => h.Key), second.OriginalHeaders.Select(h => h.Key));
    }

    [Fact]
    public void AForgedRedriveCount_AmongTheRecordsOwnHeaders_IsNotItsCount()
    {
        var record = Consumed("orders", 0, 1, new Message<byte[], byte[]>
        {
            Value = [1],
            Headers = Headers((RedriveHeaderNames.Count, "99"), (RedriveHeaderNames.Time, "t"), (RedriveHeaderNames.Run, "r"), ("tenant", "a")),
        });

        DeadLetter letter = DeadLetter.Read(Consumed("orders.dlq", 0, 0, record.ToDeadLetterMessage(new TimeoutException("slow"))));

        Assert.Equal(0, letter.RedriveCount);
        Assert.Equal(4, letter.OriginalHeaders.Count);
    }

    [Fact]
    public void ForgedHeaders_ThroughRetryHops_TheFirstHopsSource()
    {
        // orders [0] @5 fails, goes to orders.retry.1 (read there at [1] @8), then orders.retry.2 ([0] @2), then the dead-letter topic:
        // each hop appends its writer's block, saying which of its tiers it read the record from, as the hosted consumer's retry tiers do.
        var tier1 = new RetryTier("orders", 1);
        var tier2 = new RetryTier("orders", 2);
        ConsumeResult<byte[], byte[]> record = ForgedRecord();
        Message<byte[], byte[]> hop1 = ProvenanceCodec.WithoutKeys.ToRetryCopy(record, new TimeoutException("slow"), null, tier1, DateTimeOffset.UnixEpoch, DateTimeOffset.UnixEpoch);
        Message<byte[], byte[]> hop2 = ProvenanceCodec.WithoutKeys.ToRetryCopy(Consumed("orders.retry.1", 1, 8, hop1), new TimeoutException("slow"), tier1, tier2, DateTimeOffset.UnixEpoch, DateTimeOffset.UnixEpoch);
        Message<byte[], byte[]> dead = ProvenanceCodec.WithoutKeys.ToDeadLetterMessage(Consumed("orders.retry.2", 0, 2, hop2), new InvalidOperationException("still bad"), tier2);

        DeadLetter letter = DeadLetter.Read(Consumed("orders.dlq", 0, 0, dead));

        Assert.Equal(("orders", 0, 5L), (letter.SourceTopic, letter.SourcePartition!.Value, letter.SourceOffset!.Value));
        Assert.Equal("System.InvalidOperationException", letter.ErrorCode);
        Assert.Equal("still bad", letter.ErrorMessage);
        Assert.Equal(record.Message.Headers.Select(h => h.Key), letter.OriginalHeaders.Select(h => h.Key));

        // The same record dead-lettered by a writer that does not say it read it from a tier: that topic is its source.
        DeadLetter fromAnOrdinaryTopic = DeadLetter.Read(Consumed("orders.dlq", 0, 1, ProvenanceCodec.WithoutKeys.ToDeadLetterMessage(Consumed("orders.retry.2", 0, 2, hop2), new InvalidOperationException("still bad"))));
        Assert.Equal(("orders.retry.2", 0, 2L), (fromAnOrdinaryTopic.SourceTopic, fromAnOrdinaryTopic.SourcePartition!.Value, fromAnOrdinaryTopic.SourceOffset!.Value));
    }

    [Fact]
    public void ADeadLetterFromARetryTopic_WhoseHopsDoNotNameItsTiers_IsFromTheRetryTopic()
    {
        // A record written straight to orders.retry.1 (not by a hop) with a forged block naming payments before the writer's.
        var record = Consumed("orders.retry.1", 0, 3, new Message<byte[], byte[]>
        {
            Value = [1],
            Headers = Headers((DeadLetterHeaderNames.ErrorCode, "X"), (DeadLetterHeaderNames.SourceTopic, "payments"), (DeadLetterHeaderNames.SourcePartition, "0"), (DeadLetterHeaderNames.SourceOffset, "0")),
        });

        DeadLetter letter = DeadLetter.Read(Consumed("orders.dlq", 0, 0, record.ToDeadLetterMessage(new TimeoutException("slow"))));

        Assert.Equal(("orders.retry.1", 0, 3L), (letter.SourceTopic, letter.SourcePartition!.Value, letter.SourceOffset!.Value));
    }

    [Fact]
    public void ADeadLetterOf10_WithTheForgedHeaderFirst_IsReadByTheWritersOwn()
    {
        // As 1.0.0 wrote it: the record's headers as they came (the forged source first), then the writer's block.
        var record = Consumed("orders.dlq", 0, 0, new Message<byte[], byte[]>
        {
            Value = [1],
            Headers = Headers(
                (DeadLetterHeaderNames.SourceTopic, "payments"),
                (DeadLetterHeaderNames.ErrorCode, "UnknownMagicByte"), (DeadLetterHeaderNames.ErrorMessage, "The first byte is 0x7b, not the magic byte 0."), (DeadLetterHeaderNames.Component, "value"), (DeadLetterHeaderNames.ErrorOffset, "0"),
                (DeadLetterHeaderNames.SourceTopic, "orders"), (DeadLetterHeaderNames.SourcePartition, "0"), (DeadLetterHeaderNames.SourceOffset, "0"),
                ("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")),
        });

        DeadLetter letter = DeadLetter.Read(record);

        Assert.Equal(("orders", 0, 0L), (letter.SourceTopic, letter.SourcePartition!.Value, letter.SourceOffset!.Value));
        Assert.Equal(("UnknownMagicByte", "value"), (letter.ErrorCode, letter.Component));
        Assert.Equal([DeadLetterHeaderNames.SourceTopic], letter.OriginalHeaders.Select(h => h.Key));
    }
}
