using System;
using System.Linq;
using System.Text;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using Xunit;

namespace KafkaProtobuf.Tests.DeadLetters;

/// <summary>The dead letter of a record whose handler failed: the record as written, then the failure's headers.</summary>
public class HandlerFailureDeadLetterMessageTests
{
    private static ConsumeResult<byte[], byte[]> Record(byte[]? key) => new()
    {
        TopicPartitionOffset = new TopicPartitionOffset("payments", 3, 41),
        Message = new Message<byte[], byte[]>
        {
            Key = key!,
            Value = [0, 0, 0, 0, 7, 0, 0x0a, 0x01, 0x78],
            Headers = [new Header("traceparent", [1, 2, 3])],
            Timestamp = new Timestamp(1_700_000_000_000, TimestampType.CreateTime),
        },
    };

    private static string Text(Headers headers, string name) => Encoding.UTF8.GetString(headers.GetLastBytes(name));

    [Fact]
    public void KeyValueHeadersAndTimestamp_AreTheRecords_TheFailureFollowsInHeaders()
    {
        ConsumeResult<byte[], byte[]> record = Record([9, 9]);

        Message<byte[], byte[]> letter = record.ToDeadLetterMessage(new TimeoutException("the payment service did not answer"));

        Assert.Equal(record.Message.Key, letter.Key);
        Assert.Equal(record.Message.Value, letter.Value);
        Assert.Equal(record.Message.Timestamp, letter.Timestamp);
        Assert.Equal("traceparent", letter.Headers[0].Key);
        Assert.Equal("System.TimeoutException", Text(letter.Headers, DeadLetterHeaderNames.ErrorCode));
        Assert.Equal("the payment service did not answer", Text(letter.Headers, DeadLetterHeaderNames.ErrorMessage));
        Assert.Equal("handler", Text(letter.Headers, DeadLetterHeaderNames.Component));
        Assert.Equal("payments", Text(letter.Headers, DeadLetterHeaderNames.SourceTopic));
        Assert.Equal("3", Text(letter.Headers, DeadLetterHeaderNames.SourcePartition));
        Assert.Equal("41", Text(letter.Headers, DeadLetterHeaderNames.SourceOffset));
        Assert.DoesNotContain(letter.Headers, h => h.Key == DeadLetterHeaderNames.ErrorOffset); // no byte is at fault
    }

    [Fact]
    public void ANullKey_StaysNull()
    {
        Message<byte[], byte[]> letter = Record(null).ToDeadLetterMessage(new InvalidOperationException("x"));

        Assert.Null(letter.Key);
        Assert.Equal(8, letter.Headers.Count); // traceparent, then code, message, component, the three source headers and the block's trailer
    }

    [Fact]
    public void NullArguments_AreRefused()
    {
        Assert.Throws<ArgumentNullException>(() => Record(null).ToDeadLetterMessage(null!));
        Assert.Throws<ArgumentNullException>(() => ((ConsumeResult<byte[], byte[]>)null!).ToDeadLetterMessage(new InvalidOperationException()));
    }

    [Fact]
    public void AFailureKnownAsText_IsWrittenAsAnExceptionsWouldBe_ItsCodeTheGivenName()
    {
        ConsumeResult<byte[], byte[]> record = Record([9, 9]);

        Message<byte[], byte[]> fromText = record.ToDeadLetterMessage("System.TimeoutException", "the payment service did not answer");
        Message<byte[], byte[]> fromException = record.ToDeadLetterMessage(new TimeoutException("the payment service did not answer"));

        Assert.Equal(record.Message.Value, fromText.Value);
        Assert.Equal(record.Message.Key, fromText.Key);
        Assert.Equal(
            fromException.Headers.Select(h => h.Key + "=" + Convert.ToHexString(h.GetValueBytes())),
            fromText.Headers.Select(h => h.Key + "=" + Convert.ToHexString(h.GetValueBytes())));
    }

    [Fact]
    public void AFailureKnownAsText_IsCutToTheHeaderBudget()
    {
        Message<byte[], byte[]> letter = Record(null).ToDeadLetterMessage(new string('c', 5000), new string('m', 5000));

        Assert.Equal(DeadLetterMessages.MaxHeaderValueBytes, letter.Headers.GetLastBytes(DeadLetterHeaderNames.ErrorCode).Length);
        Assert.Equal(DeadLetterMessages.MaxHeaderValueBytes, letter.Headers.GetLastBytes(DeadLetterHeaderNames.ErrorMessage).Length);
        Assert.Throws<ArgumentNullException>(() => Record(null).ToDeadLetterMessage(null!, "m"));
        Assert.Throws<ArgumentNullException>(() => Record(null).ToDeadLetterMessage("c", null!));
    }
}
