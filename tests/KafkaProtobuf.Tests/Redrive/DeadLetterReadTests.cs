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
                    ("traceparent", "00-a-b-01"), (RedriveHeaderNames.Count, "1"), (RedriveHeaderNames.Run, "r"),
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
    public void AForgedSourceTopic_IsNoSource(string forged)
    {
        var record = new ConsumeResult<byte[], byte[]>
        {
            TopicPartitionOffset = new TopicPartitionOffset("orders.dlq", 0, 0),
            Message = new Message<byte[], byte[]> { Value = [1], Headers = Headers((DeadLetterHeaderNames.SourceTopic, forged)) },
        };

        Assert.Null(DeadLetter.Read(record).SourceTopic);
        Assert.Null(DeadLetter.Read(new ConsumeResult<byte[], byte[]>
        {
            TopicPartitionOffset = record.TopicPartitionOffset,
            Message = new Message<byte[], byte[]> { Value = [1], Headers = Headers((DeadLetterHeaderNames.SourceTopic, new string('a', 250))) },
        }).SourceTopic);
        Assert.Equal("orders.retry-1_x", DeadLetter.Read(new ConsumeResult<byte[], byte[]>
        {
            TopicPartitionOffset = record.TopicPartitionOffset,
            Message = new Message<byte[], byte[]> { Value = [1], Headers = Headers((DeadLetterHeaderNames.SourceTopic, "orders.retry-1_x")) },
        }).SourceTopic);
    }
}
