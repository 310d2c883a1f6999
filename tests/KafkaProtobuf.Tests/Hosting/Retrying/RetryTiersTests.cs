using System;
using System.Linq;
using System.Text;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Hosting;
using Xunit;

namespace KafkaProtobuf.Tests.Hosting.Retrying;

/// <summary>Retry topics' rules from a record's headers, with a clock the test sets: the next tier, the copy, its due time, and the record as its handler sees it.</summary>
public sealed class RetryTiersTests
{
    private static readonly DateTimeOffset Now = new(2026, 11, 25, 12, 0, 0, TimeSpan.Zero);

    private DateTimeOffset _now = Now;

    private RetryTiers Tiers() => new(new RetryTopicOptions { Delays = { TimeSpan.FromSeconds(10), TimeSpan.FromMinutes(1) } }, () => _now);

    private static ConsumeResult<byte[], byte[]> Record(string topic, long offset, Headers? headers = null) => new()
    {
        TopicPartitionOffset = new TopicPartitionOffset(topic, 2, offset),
        Message = new Message<byte[], byte[]> { Key = Encoding.UTF8.GetBytes("k"), Value = [1, 2, 3], Headers = headers ?? [new Header("own", [7])] },
    };

    [Fact]
    public void AFailedRecord_GoesToTier1_ThenTier2_ByItsFirstTopicsName_ThenToTheDeadLetterTopic()
    {
        RetryTiers tiers = Tiers();
        ConsumeResult<byte[], byte[]> original = Record("orders", 41);

        Assert.Equal("orders.retry.1", tiers.NextTopic(original, out int tier));
        Message<byte[], byte[]> first = tiers.Copy(original, new TimeoutException("no answer"), tier, out DateTimeOffset due);
        Assert.Equal(Now + TimeSpan.FromSeconds(10), due);

        // Read back from orders.retry.1 (by this consumer, or by another registration reading the retry topics):
        _now += TimeSpan.FromSeconds(30);
        ConsumeResult<byte[], byte[]> fromTier1 = Record("orders.retry.1", 5, first.Headers);
        Assert.Equal("orders.retry.2", tiers.NextTopic(fromTier1, out tier));
        Message<byte[], byte[]> second = tiers.Copy(fromTier1, new TimeoutException("still no answer"), tier, out due);
        Assert.Equal(Now + TimeSpan.FromSeconds(30) + TimeSpan.FromMinutes(1), due);

        Assert.Null(tiers.NextTopic(Record("orders.retry.2", 9, second.Headers), out tier)); // the last tier: the dead-letter topic's turn
        Assert.Equal(3, tier);

        // The copy: the record's own headers first, then one set per hop; the first failure's time once.
        Assert.Equal([1, 2, 3], second.Value);
        Assert.Equal("own", second.Headers[0].Key);
        Assert.Equal(["1", "2"], Values(second.Headers, RetryHeaderNames.Attempt));
        Assert.Equal([Now.ToUnixTimeMilliseconds().ToString(System.Globalization.CultureInfo.InvariantCulture)], Values(second.Headers, RetryHeaderNames.FirstFailure));
        Assert.Equal(["orders", "orders.retry.1"], Values(second.Headers, DeadLetterHeaderNames.SourceTopic));
        Assert.Equal(["no answer", "still no answer"], Values(second.Headers, DeadLetterHeaderNames.ErrorMessage));
    }

    [Fact]
    public void ARecordIsNotDueUntilItsDueTime_AndOneThatNeverFailedIsNeverHeldBack()
    {
        RetryTiers tiers = Tiers();
        Message<byte[], byte[]> copy = tiers.Copy(Record("orders", 41), new TimeoutException("no answer"), 1, out _);

        Assert.True(tiers.NotYetDue(copy.Headers, out TimeSpan wait));
        Assert.Equal(TimeSpan.FromSeconds(10), wait);
        _now += TimeSpan.FromSeconds(10);
        Assert.False(tiers.NotYetDue(copy.Headers, out _));
        Assert.False(tiers.NotYetDue(Record("orders", 1).Message.Headers, out _));
        Assert.False(tiers.NotYetDue(null, out _));
    }

    [Fact]
    public void TheHandler_SeesARetryTopicsRecordAtThePositionItWasFirstReadFrom_AndAnyOtherAsItIs()
    {
        RetryTiers tiers = Tiers();
        Message<byte[], byte[]> copy = tiers.Copy(Record("orders", 41), new TimeoutException("no answer"), 1, out _);
        var fromTier1 = new ConsumeResult<string, string> { TopicPartitionOffset = new TopicPartitionOffset("orders.retry.1", 0, 5), Message = new Message<string, string> { Value = "v", Headers = copy.Headers } };
        var plain = new ConsumeResult<string, string> { TopicPartitionOffset = new TopicPartitionOffset("orders", 0, 5), Message = new Message<string, string> { Value = "v" } };

        ConsumeResult<string, string> seen = RetryTiers.AsOriginal(fromTier1);

        Assert.Equal(new TopicPartitionOffset("orders", 2, 41), seen.TopicPartitionOffset);
        Assert.Same(fromTier1.Message, seen.Message);
        Assert.Same(plain, RetryTiers.AsOriginal(plain));
    }

    private static string[] Values(Headers headers, string name) => [.. headers.Where(h => h.Key == name).Select(h => Encoding.UTF8.GetString(h.GetValueBytes()))];
}
