using System;
using System.Linq;
using System.Text;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.Hosting.Retrying;
using Xunit;

namespace KafkaProtobuf.Tests.Hosting.Retrying;

/// <summary>
/// Retry topics' rules, with a clock the test sets: the next tier, the copy, its due time, and the record as its handler
/// sees it; and that only the retry topics the consumer's configuration names are read as retries, their headers range-checked,
/// while on every other topic retry and source headers (forged, or a dead letter's written back) play no part.
/// </summary>
public sealed class RetryTiersTests
{
    private static readonly DateTimeOffset Now = new(2026, 11, 25, 12, 0, 0, TimeSpan.Zero);

    private DateTimeOffset _now = Now;

    private RetryTiers Tiers(params string[] subscribed) =>
        new(new RetryTopicOptions { Delays = { TimeSpan.FromSeconds(10), TimeSpan.FromMinutes(1) } }, subscribed.Length > 0 ? subscribed : ["orders", "orders.retry.1", "orders.retry.2"], ProvenanceCodec.WithoutKeys, () => _now);

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

        Assert.Equal("orders.retry.1", NextTopic(tiers, original, out int tier));
        Message<byte[], byte[]> first = Copy(tiers, original, new TimeoutException("no answer"), tier, out DateTimeOffset due);
        Assert.Equal(Now + TimeSpan.FromSeconds(10), due);

        // Read back from orders.retry.1 (by this consumer, or by another registration reading the retry topics):
        _now += TimeSpan.FromSeconds(30);
        ConsumeResult<byte[], byte[]> fromTier1 = Record("orders.retry.1", 5, first.Headers);
        Assert.Equal("orders.retry.2", NextTopic(tiers, fromTier1, out tier));
        Message<byte[], byte[]> second = Copy(tiers, fromTier1, new TimeoutException("still no answer"), tier, out due);
        Assert.Equal(Now + TimeSpan.FromSeconds(30) + TimeSpan.FromMinutes(1), due);

        Assert.Null(NextTopic(tiers, Record("orders.retry.2", 9, second.Headers), out tier)); // the last tier: the dead-letter topic's turn
        Assert.Equal(3, tier);

        // The copy: the record's own headers first, then one set per hop; the first failure's time once.
        Assert.Equal([1, 2, 3], second.Value);
        Assert.Equal("own", second.Headers[0].Key);
        Assert.Equal(["1", "2"], Values(second.Headers, RetryHeaderNames.Tier));
        Assert.Equal([Now.ToUnixTimeMilliseconds().ToString(System.Globalization.CultureInfo.InvariantCulture)], Values(second.Headers, RetryHeaderNames.FirstFailure));
        Assert.Equal(["orders", "orders.retry.1"], Values(second.Headers, DeadLetterHeaderNames.SourceTopic));
        Assert.Equal(["no answer", "still no answer"], Values(second.Headers, DeadLetterHeaderNames.ErrorMessage));
    }

    [Fact]
    public void ARecordIsNotDueUntilItsDueTime_AndOneThatNeverFailedIsNeverHeldBack()
    {
        RetryTiers tiers = Tiers();
        Message<byte[], byte[]> copy = Copy(tiers, Record("orders", 41), new TimeoutException("no answer"), 1, out _);

        Assert.True(NotYetDue(tiers, Record("orders.retry.1", 0, copy.Headers), out TimeSpan wait));
        Assert.Equal(TimeSpan.FromSeconds(10), wait);
        _now += TimeSpan.FromSeconds(10);
        Assert.False(NotYetDue(tiers, Record("orders.retry.1", 0, copy.Headers), out _));
        Assert.False(NotYetDue(tiers, Record("orders", 1), out _));
    }

    [Theory]
    [InlineData("99999999999999999")] // past DateTimeOffset's range: threw on the loop thread
    [InlineData("253402300799999")] // the year 9999: paused the partition for 8,000 years
    [InlineData("-5")]
    [InlineData("not a number")]
    [InlineData("")]
    public void ADueTimeOnARecordOfAnotherTopic_PlaysNoPart_AndOnARetryTopicIsBelievedNoFurtherThanTheTiersDelayAndTheSkew(string due)
    {
        RetryTiers tiers = Tiers();
        var headers = new Headers { { RetryHeaderNames.Due, Encoding.UTF8.GetBytes(due) }, { RetryHeaderNames.Tier, Encoding.UTF8.GetBytes("1") } };

        Assert.False(NotYetDue(tiers, Record("orders", 3, headers), out _));
        Assert.False(NotYetDue(tiers, Record("orders.retry.1", 3, headers), out _)); // due at once: never held longer than 10 s plus the skew
        Assert.False(NotYetDue(tiers, Record("payments.retry.1", 3, headers), out _)); // a retry topic of a topic this consumer does not read
    }

    [Fact]
    public void ADueTimeWithinTheTiersDelayAndTheSkew_IsWaitedFor_AndOneBeyondIsDueAtOnce()
    {
        RetryTiers tiers = Tiers();
        var tier1 = new RetryTier("orders", 1);
        var tier2 = new RetryTier("orders", 2);

        // Copies whose hops say a due time of the writer's clock (another consumer's, or one running ahead).
        ConsumeResult<byte[], byte[]> Copy1(TimeSpan fromNow) =>
            Record("orders.retry.1", 0, ProvenanceCodec.WithoutKeys.ToRetryCopy(Record("orders", 41), new TimeoutException("no answer"), null, tier1, _now + fromNow, _now).Headers);

        Assert.True(NotYetDue(tiers, Copy1(TimeSpan.FromSeconds(10) + RetryTiers.AllowedClockSkew), out TimeSpan wait));
        Assert.Equal(TimeSpan.FromSeconds(10) + RetryTiers.AllowedClockSkew, wait);
        Assert.False(NotYetDue(tiers, Copy1(TimeSpan.FromSeconds(11) + RetryTiers.AllowedClockSkew), out _));
        ConsumeResult<byte[], byte[]> onTier1 = Copy1(TimeSpan.Zero);
        Message<byte[], byte[]> toTier2 = ProvenanceCodec.WithoutKeys.ToRetryCopy(onTier1, new TimeoutException("no answer"), tier1, tier2, _now + TimeSpan.FromMinutes(1), _now);
        Assert.True(NotYetDue(tiers, Record("orders.retry.2", 0, toTier2.Headers), out _)); // tier 2's own delay
    }

    [Fact]
    public void ADueTimeHeaderWithoutAHopsBlock_IsNotBelieved_TheRecordIsDueAtOnce()
    {
        RetryTiers tiers = Tiers();
        var headers = new Headers { { RetryHeaderNames.Due, Encoding.UTF8.GetBytes((_now + TimeSpan.FromSeconds(5)).ToUnixTimeMilliseconds().ToString(System.Globalization.CultureInfo.InvariantCulture)) } };

        Assert.False(NotYetDue(tiers, Record("orders.retry.1", 0, headers), out _)); // written straight to the tier: no hop wrote it there
    }

    [Theory]
    [InlineData("-1")]
    [InlineData("2147483647")]
    [InlineData("5")]
    public void AnAttemptHeader_NeverDecidesTheTier_TheTopicsNameDoes(string attempt)
    {
        RetryTiers tiers = Tiers();
        var headers = new Headers { { RetryHeaderNames.Tier, Encoding.UTF8.GetBytes(attempt) } };

        Assert.Equal("orders.retry.1", NextTopic(tiers, Record("orders", 3, headers), out int first));
        Message<byte[], byte[]> copy = Copy(tiers, Record("orders", 3, headers), new TimeoutException("no answer"), first, out _); // threw for -1 and int.MaxValue
        Assert.Equal("orders.retry.2", NextTopic(tiers, Record("orders.retry.1", 3, headers), out _));
        Assert.Null(NextTopic(tiers, Record("orders.retry.2", 3, headers), out _));
        Assert.Equal(1, first);
        Assert.Equal("1", Encoding.UTF8.GetString(copy.Headers.GetLastBytes(RetryHeaderNames.Tier)));
    }

    [Fact]
    public void ForgedSourceHeaders_OnARecordOfAnotherTopic_NeitherRouteItNorChangeWhatItsHandlerSees()
    {
        RetryTiers tiers = Tiers();
        var forged = new Headers
        {
            { DeadLetterHeaderNames.SourceTopic, Encoding.UTF8.GetBytes("payments") },
            { DeadLetterHeaderNames.SourcePartition, Encoding.UTF8.GetBytes("7") },
            { DeadLetterHeaderNames.SourceOffset, Encoding.UTF8.GetBytes("99") },
            { RetryHeaderNames.Tier, Encoding.UTF8.GetBytes("1") },
        };
        ConsumeResult<byte[], byte[]> record = Record("orders", 41, forged);

        Assert.Equal("orders.retry.1", NextTopic(tiers, record, out int tier)); // not payments.retry.1, with the service's credentials
        Assert.Same(record, AsOriginal(tiers, record));

        // Its copy keeps the forged headers (the record's own), and its handler on tier 1 still sees where it was first read.
        Message<byte[], byte[]> copy = Copy(tiers, record, new TimeoutException("no answer"), tier, out _);
        ConsumeResult<byte[], byte[]> fromTier1 = Record("orders.retry.1", 5, copy.Headers);
        Assert.Equal(new TopicPartitionOffset("orders", 2, 41), AsOriginal(tiers, fromTier1).TopicPartitionOffset);
    }

    [Fact]
    public void ARetryTopicsRecordWhoseSourceHeadersNameAnotherTopic_IsShownAtItsOwnPosition()
    {
        RetryTiers tiers = Tiers();
        var forged = new Headers
        {
            { DeadLetterHeaderNames.SourceTopic, Encoding.UTF8.GetBytes("payments") },
            { DeadLetterHeaderNames.SourcePartition, Encoding.UTF8.GetBytes("7") },
            { DeadLetterHeaderNames.SourceOffset, Encoding.UTF8.GetBytes("99") },
        };
        ConsumeResult<byte[], byte[]> record = Record("orders.retry.1", 5, forged);

        Assert.Same(record, AsOriginal(tiers, record));
        Assert.Equal("orders.retry.2", NextTopic(tiers, record, out _));
    }

    [Fact]
    public void ADeadLetterWrittenBackToItsTopic_StartsAgainAtTier1()
    {
        RetryTiers tiers = Tiers();
        Message<byte[], byte[]> first = Copy(tiers, Record("orders", 41), new TimeoutException("no answer"), 1, out _);
        Message<byte[], byte[]> second = Copy(tiers, Record("orders.retry.1", 5, first.Headers), new TimeoutException("no answer"), 2, out _);

        ConsumeResult<byte[], byte[]> redriven = Record("orders", 300, second.Headers); // its headers say tier 2, and a source in orders.retry.1

        Assert.Equal("orders.retry.1", NextTopic(tiers, redriven, out int tier));
        Assert.Equal(1, tier);
        Assert.Same(redriven, AsOriginal(tiers, redriven));
        Assert.False(NotYetDue(tiers, redriven, out _));
    }

    [Fact]
    public void ASecondRegistrationReadingTheRetryTopics_ReadsThemAsRetries_AndATopicNamedLikeOneButPastTheTiersIsNone()
    {
        RetryTiers second = Tiers("orders.retry.1", "orders.retry.2", "orders.retry.3", "orders.retry.01");
        Message<byte[], byte[]> copy = Copy(second, Record("orders", 41), new TimeoutException("no answer"), 1, out _);

        Assert.True(NotYetDue(second, Record("orders.retry.1", 0, copy.Headers), out _));
        Assert.Equal("orders.retry.2", NextTopic(second, Record("orders.retry.1", 0, copy.Headers), out _));
        Assert.Equal("orders.retry.3.retry.1", NextTopic(second, Record("orders.retry.3", 0, copy.Headers), out _)); // there are two tiers: an ordinary topic
        Assert.Equal(new RetryTier("orders", 2), second.TierOf("orders.retry.2"));
        Assert.Null(second.TierOf("orders.retry.3"));
        Assert.Null(second.TierOf("orders.retry.01"));
        RetryTiers odd = Tiers("orders.retry.", ".retry.1");
        Assert.Null(odd.TierOf("orders.retry."));
        Assert.Null(odd.TierOf(".retry.1"));
    }

    [Fact]
    public void TheHandler_SeesARetryTopicsRecordAtThePositionItWasFirstReadFrom_AndAnyOtherAsItIs()
    {
        RetryTiers tiers = Tiers();
        Message<byte[], byte[]> copy = Copy(tiers, Record("orders", 41), new TimeoutException("no answer"), 1, out _);
        var fromTier1 = new ConsumeResult<byte[], byte[]> { TopicPartitionOffset = new TopicPartitionOffset("orders.retry.1", 0, 5), Message = copy };
        ConsumeResult<byte[], byte[]> plain = Record("orders", 5);

        ConsumeResult<byte[], byte[]> seen = AsOriginal(tiers, fromTier1);

        Assert.Equal(new TopicPartitionOffset("orders", 2, 41), seen.TopicPartitionOffset);
        Assert.Same(fromTier1.Message, seen.Message);
        Assert.Same(plain, AsOriginal(tiers, plain));
    }

    /// <summary>The topic a failed record goes to next, and its tier (one past the last: the dead-letter topic's turn).</summary>
    private static string? NextTopic(RetryTiers tiers, ConsumeResult<byte[], byte[]> record, out int tier)
    {
        RetryTier? readFrom = tiers.TierOf(record.Topic);
        tier = (readFrom?.Tier ?? 0) + 1;
        return tiers.NextTier(record, readFrom)?.Name;
    }

    /// <summary>The copy of a record read where it is, for tier <paramref name="tier"/> of its first topic.</summary>
    private static Message<byte[], byte[]> Copy(RetryTiers tiers, ConsumeResult<byte[], byte[]> record, Exception failure, int tier, out DateTimeOffset due) =>
        tiers.Copy(record, failure, new RetryTier(tiers.TierOf(record.Topic)?.Topic ?? record.Topic, tier), out due);

    private static string[] Values(Headers headers, string name) => [.. headers.Where(h => h.Key == name).Select(h => Encoding.UTF8.GetString(h.GetValueBytes()))];

    /// <summary>Whether a record of a tier is not due yet, as one reading of its hops says.</summary>
    private static bool NotYetDue(RetryTiers tiers, ConsumeResult<byte[], byte[]> record, out TimeSpan wait)
    {
        TierRecord read = tiers.Read(record);
        wait = read.Wait;
        return read.NotYetDue;
    }

    /// <summary>The record as its handler sees it.</summary>
    private static ConsumeResult<byte[], byte[]> AsOriginal(RetryTiers tiers, ConsumeResult<byte[], byte[]> record) => RetryTiers.AsOriginal(record, tiers.Read(record));
}
