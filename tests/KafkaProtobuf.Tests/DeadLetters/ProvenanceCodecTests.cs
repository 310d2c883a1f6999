using System;
using System.Linq;
using System.Text;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Redrive;
using Xunit;
using static KafkaProtobuf.Tests.DeadLetters.ProvenanceRecords;

namespace KafkaProtobuf.Tests.DeadLetters;

/// <summary>
/// <see cref="ProvenanceCodec"/>, tried as an attacker who may write to one topic would, through the public API only (a
/// record's own headers, then the library's dead-letter writer, then the reader): a record's own headers never say where
/// it came from or how often it was redriven; a topic named like a tier is not one; with keys, a forged, altered or
/// foreign block is not believed; without keys, what is believed is what the documented trust boundary says.
/// </summary>
public sealed class ProvenanceCodecTests
{
    private static readonly RetryTier OrdersTier1 = new("orders", 1);
    private static readonly RetryTier OrdersTier2 = new("orders", 2);

    /// <summary>A complete block as the codec writes it, forged into a record's own headers (by writing a dead letter of another record).</summary>
    private static Headers ForgedBlock(string topic, int partition, long offset, Headers? before = null)
    {
        Message<byte[], byte[]> forged = ProvenanceCodec.WithoutKeys.ToRetryCopy(
            Produced(topic, partition, offset, before ?? Headers(("tenant", "acme"))), new TimeoutException("forged"), null, new RetryTier(topic, 1), DateTimeOffset.UnixEpoch, DateTimeOffset.UnixEpoch);
        return forged.Headers;
    }

    /// <summary>The same block as 1.0.0 wrote it: no trailer.</summary>
    private static Headers ForgedLegacyBlock(string topic, int partition, long offset, Headers? before = null)
    {
        Headers headers = before ?? Headers(("tenant", "acme"));
        foreach ((string name, string value) in new[]
        {
            (DeadLetterHeaderNames.ErrorCode, "UnknownMagicByte"), (DeadLetterHeaderNames.ErrorMessage, "forged"), (DeadLetterHeaderNames.Component, "key"),
            (DeadLetterHeaderNames.SourceTopic, topic), (DeadLetterHeaderNames.SourcePartition, partition.ToString(System.Globalization.CultureInfo.InvariantCulture)),
            (DeadLetterHeaderNames.SourceOffset, offset.ToString(System.Globalization.CultureInfo.InvariantCulture)), ("kafkaprotobuf.retry.tier", "1"),
        })
        {
            headers.Add(name, Encoding.UTF8.GetBytes(value));
        }

        return headers;
    }

    // Row 1: on orders [0] @7, its own headers ending with a complete forged block naming payments [3] @99 and a retry tier.
    [Theory]
    [InlineData(false, false)]
    [InlineData(true, false)]
    [InlineData(false, true)]
    [InlineData(true, true)]
    public void ARecordsOwnCompleteBlock_NeverNamesItsSource(bool legacyForgery, bool keys)
    {
        Headers own = legacyForgery ? ForgedLegacyBlock("payments", 3, 99) : ForgedBlock("payments", 3, 99);
        ConsumeResult<byte[], byte[]> record = Produced("orders", 0, 7, own);

        DeadLetter letter = DeadLetterOf(record, keys ? Keys : null, null, keys ? Keys : null);

        Assert.Equal(("orders", (int?)0, (long?)7), SourceOf(letter));
        Assert.Equal(keys ? ProvenanceStatus.Verified : ProvenanceStatus.Unchecked, letter.Provenance);
        Assert.Equal("System.TimeoutException", letter.ErrorCode);
        Assert.Equal(0, letter.RedriveCount);
        Assert.Equal(own.Select(h => h.Key), letter.OriginalHeaders.Select(h => h.Key)); // the forged block is the record's own, written back as it was
        Assert.Equal("orders [0] @7", letter.DescribeSource());
    }

    // Row 2: on an ordinary topic named billing.retry.2 (no tiers configured), ending with two forged hops.
    [Theory]
    [InlineData(false, false)]
    [InlineData(true, false)]
    [InlineData(false, true)]
    [InlineData(true, true)]
    public void ATopicNamedLikeATier_IsNoTier_ItIsTheSource(bool legacyForgery, bool keys)
    {
        Headers own = legacyForgery
            ? ForgedLegacyBlock("billing.retry.1", 4, 41, ForgedLegacyBlock("billing", 4, 40))
            : ProvenanceCodec.WithoutKeys.ToRetryCopy(
                Produced("billing.retry.1", 4, 41, ForgedBlock("billing", 4, 40)), new TimeoutException("forged"), new RetryTier("billing", 1), new RetryTier("billing", 2), DateTimeOffset.UnixEpoch, DateTimeOffset.UnixEpoch).Headers;
        ConsumeResult<byte[], byte[]> record = Produced("billing.retry.2", 0, 7, own);

        DeadLetter letter = DeadLetterOf(record, keys ? Keys : null, null, keys ? Keys : null);

        Assert.Equal(("billing.retry.2", (int?)0, (long?)7), SourceOf(letter));
        Assert.True(letter.Provenance is ProvenanceStatus.Verified or ProvenanceStatus.Unchecked);
    }

    // Row 3: produced straight into a real tier, orders.retry.1 [0] @7, ending with one forged hop naming orders [5] @999.
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void AForgedHopInARealTier_WithKeys_IsNotBelieved_ByTheDeadLetterNorByTheHandler(bool legacyForgery)
    {
        Headers own = legacyForgery ? ForgedLegacyBlock("orders", 5, 999) : ForgedBlock("orders", 5, 999);
        ConsumeResult<byte[], byte[]> record = Produced("orders.retry.1", 0, 7, own);
        var consumer = new ProvenanceCodec(Keys);

        DeadLetter letter = DeadLetterOf(record, Keys, OrdersTier1, Keys);

        Assert.Equal(ProvenanceStatus.Unverified, letter.Provenance);
        Assert.Equal((null, null, null), SourceOf(letter));
        Assert.Contains("retry hop", letter.ProvenanceProblem, StringComparison.Ordinal);
        Assert.Equal(letter.ProvenanceProblem, letter.DescribeSource());
        Assert.Equal("System.TimeoutException", letter.ErrorCode); // the consumer's own failure, which verified
        Assert.False(consumer.TryReadRetryCopy(record, OrdersTier1, out _, out _)); // its handler sees it where it is
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void AForgedHopInARealTier_WithoutKeys_IsTheTrustBoundary_TheHandlerAndTheDeadLetterAgree(bool legacyForgery)
    {
        Headers own = legacyForgery ? ForgedLegacyBlock("orders", 5, 999) : ForgedBlock("orders", 5, 999);
        ConsumeResult<byte[], byte[]> record = Produced("orders.retry.1", 0, 7, own);

        DeadLetter letter = DeadLetterOf(record, null, OrdersTier1, null);

        // Without a secret, a copy written into a real tier by someone allowed to write there is the consumer's own
        // (docs/dead-letters.md: only the consumers may write the retry topics). What the handler saw, the redrive says.
        Assert.Equal(ProvenanceStatus.Unchecked, letter.Provenance);
        Assert.Equal(("orders", (int?)5, (long?)999), SourceOf(letter));
        Assert.True(ProvenanceCodec.WithoutKeys.TryReadRetryCopy(record, OrdersTier1, out TopicPartitionOffset? origin, out _));
        Assert.Equal(new TopicPartitionOffset("orders", 5, 999), origin);
    }

    [Fact]
    public void ARecordWrittenStraightIntoATier_WithOnlySourceHeaders_IsItsOwnOrigin_ForTheHandlerAndTheRedriveAlike()
    {
        // Today's main showed it to its handler as first read from orders (the position its headers named), while a redrive targeted orders.retry.1.
        ConsumeResult<byte[], byte[]> record = Produced("orders.retry.1", 0, 7, Headers(
            (DeadLetterHeaderNames.SourceTopic, "orders"), (DeadLetterHeaderNames.SourcePartition, "5"), (DeadLetterHeaderNames.SourceOffset, "999")));

        DeadLetter letter = DeadLetterOf(record, null, OrdersTier1, null);

        Assert.False(ProvenanceCodec.WithoutKeys.TryReadRetryCopy(record, OrdersTier1, out _, out _));
        Assert.Equal(("orders.retry.1", (int?)0, (long?)7), SourceOf(letter));
        Assert.Equal(3, letter.OriginalHeaders.Count);
    }

    // Row 4: on orders [0] @7 with its own redrive count 999, time and run at the end.
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void ARecordsOwnRedriveCount_WithKeys_IsZero_WithoutKeys_IsTheTrustBoundary(bool asABlock)
    {
        Headers own = Headers(("tenant", "acme"), (RedriveHeaderNames.Count, "999"), (RedriveHeaderNames.Time, "2026-12-01T00:00:00.000Z"), (RedriveHeaderNames.Run, "forged"));
        if (asABlock)
        {
            own.Add(DeadLetterHeaderNames.Block, Encoding.UTF8.GetBytes("v1;start=1;own=1"));
        }

        ConsumeResult<byte[], byte[]> record = Produced("orders", 0, 7, own);

        DeadLetter signed = DeadLetterOf(record, Keys, null, Keys);
        DeadLetter unsigned = DeadLetterOf(record, null, null, null);

        Assert.Equal(0, signed.RedriveCount);
        Assert.Equal(own.Count, signed.OriginalHeaders.Count); // not believed: the record's own headers, written back as they were
        Assert.Equal(("orders", (int?)0, (long?)7), SourceOf(signed));
        Assert.Equal(999, unsigned.RedriveCount); // without keys anyone who may write orders can say it was redriven
    }

    [Fact]
    public void ASignedChainThroughTheTiers_Verifies_AndTheHandlerSeesTheOrigin()
    {
        var codec = new ProvenanceCodec(Keys);
        ConsumeResult<byte[], byte[]> original = Produced("orders", 3, 41, Headers(("tenant", "acme")));
        ConsumeResult<byte[], byte[]> onTier1 = Consumed("orders.retry.1", 0, 5, codec.ToRetryCopy(original, new TimeoutException("1"), null, OrdersTier1, DateTimeOffset.UnixEpoch, DateTimeOffset.UnixEpoch));
        ConsumeResult<byte[], byte[]> onTier2 = Consumed("orders.retry.2", 1, 9, codec.ToRetryCopy(onTier1, new TimeoutException("2"), OrdersTier1, OrdersTier2, DateTimeOffset.UnixEpoch, DateTimeOffset.UnixEpoch));

        Assert.True(codec.TryReadRetryCopy(onTier2, OrdersTier2, out TopicPartitionOffset? origin, out DateTimeOffset? due));
        Assert.Equal(new TopicPartitionOffset("orders", 3, 41), origin);
        Assert.Equal(DateTimeOffset.UnixEpoch, due);

        DeadLetter letter = DeadLetterOf(onTier2, Keys, OrdersTier2, Keys);
        Assert.Equal(ProvenanceStatus.Verified, letter.Provenance);
        Assert.Equal(("orders", (int?)3, (long?)41), SourceOf(letter));
        Assert.Equal(["tenant"], letter.OriginalHeaders.Select(h => h.Key));

        // Read without keys, the same dead letter is believed unchecked.
        Assert.Equal(ProvenanceStatus.Unchecked, DeadLetter.Read(letter.Record).Provenance);
        Assert.Equal(("orders", (int?)3, (long?)41), SourceOf(DeadLetter.Read(letter.Record)));
    }

    [Fact]
    public void ADeadLetterSignedWithAnotherKey_IsNotBelieved()
    {
        DeadLetter letter = DeadLetterOf(Produced("orders", 0, 7, Headers(("tenant", "acme"))), OtherKeys, null, Keys);

        Assert.Equal(ProvenanceStatus.Unverified, letter.Provenance);
        Assert.Null(letter.SourceTopic);
        Assert.Contains("does not verify", letter.ProvenanceProblem, StringComparison.Ordinal);
    }

    [Fact]
    public void ADeadLetterWhoseValueWasChangedAfterSigning_IsNotBelieved()
    {
        Message<byte[], byte[]> message = new ProvenanceCodec(Keys).ToDeadLetterMessage(Produced("orders", 0, 7, Headers(("tenant", "acme"))), new TimeoutException("slow"));
        message.Value = [1, 2, 4];

        DeadLetter letter = new ProvenanceCodec(Keys).Read(Consumed("orders.dlq", 0, 0, message));

        Assert.Equal(ProvenanceStatus.Unverified, letter.Provenance);
        Assert.Null(letter.SourceTopic);
    }

    [Theory]
    [InlineData("v1;start=1;own=0")]
    [InlineData("v1;start=0;own=0")]
    [InlineData("v1;start=01;own=1")]
    [InlineData("v2;start=1;own=1")]
    [InlineData("")]
    public void ASignedDeadLetterWhoseTrailerWasRewritten_IsNotBelieved(string rewritten)
    {
        Message<byte[], byte[]> message = new ProvenanceCodec(Keys).ToDeadLetterMessage(Produced("orders", 0, 7, Headers(("tenant", "acme"))), new TimeoutException("slow"));
        int trailer = message.Headers.Select((h, i) => (h, i)).Last(x => x.h.Key == DeadLetterHeaderNames.Block).i;
        string text = Encoding.UTF8.GetString(message.Headers[trailer].GetValueBytes());
        var headers = new Headers();
        for (int i = 0; i < message.Headers.Count; i++)
        {
            headers.Add(message.Headers[i].Key, i == trailer ? Encoding.UTF8.GetBytes(string.Concat(rewritten, text.AsSpan(text.IndexOf(";hmac=", StringComparison.Ordinal)))) : message.Headers[i].GetValueBytes());
        }

        message.Headers = headers;
        DeadLetter letter = new ProvenanceCodec(Keys).Read(Consumed("orders.dlq", 0, 0, message));

        Assert.Equal(ProvenanceStatus.Unverified, letter.Provenance);
        Assert.Null(letter.SourceTopic);
    }

    [Fact]
    public void ASignedCopyMovedToAnotherTopicsTier_IsNotBelievedThere()
    {
        var codec = new ProvenanceCodec(Keys);
        Message<byte[], byte[]> copy = codec.ToRetryCopy(Produced("orders", 0, 7, Headers(("tenant", "acme"))), new TimeoutException("1"), null, OrdersTier1, DateTimeOffset.UnixEpoch, DateTimeOffset.UnixEpoch);
        ConsumeResult<byte[], byte[]> replayed = Consumed("payments.retry.1", 0, 3, copy); // verbatim, by someone who may read orders.retry.1 and write payments.retry.1

        Assert.False(codec.TryReadRetryCopy(replayed, new RetryTier("payments", 1), out _, out _));
        DeadLetter letter = DeadLetterOf(replayed, Keys, new RetryTier("payments", 1), Keys);
        Assert.Equal(ProvenanceStatus.Unverified, letter.Provenance);
        Assert.Contains("did not read the record from payments", letter.ProvenanceProblem, StringComparison.Ordinal);
    }

    [Fact]
    public void KeysRotate_TheFirstSigns_EveryKeyVerifies()
    {
        var rotated = new ProvenanceKeys([Key(2), Key(1)]);
        ConsumeResult<byte[], byte[]> record = Produced("orders", 0, 7, Headers(("tenant", "acme")));

        Assert.Equal(ProvenanceStatus.Verified, DeadLetterOf(record, Keys, null, rotated).Provenance); // signed with the old key
        Assert.Equal(ProvenanceStatus.Verified, DeadLetterOf(record, rotated, null, OtherKeys).Provenance); // the new key signs
        Assert.Equal(ProvenanceStatus.Unverified, DeadLetterOf(record, rotated, null, Keys).Provenance);
    }

    [Fact]
    public void AKeySwitchedOnLater_BelievesUnsignedDeadLetters_UnlessSignaturesAreRequired()
    {
        ConsumeResult<byte[], byte[]> record = Produced("orders", 0, 7, Headers(("tenant", "acme")));

        DeadLetter believed = DeadLetterOf(record, null, null, Keys);
        DeadLetter refused = DeadLetterOf(record, null, null, new ProvenanceKeys([Key(1)], requireSignatures: true));

        Assert.Equal(ProvenanceStatus.Unchecked, believed.Provenance);
        Assert.Equal(("orders", (int?)0, (long?)7), SourceOf(believed));
        Assert.Equal(ProvenanceStatus.Unverified, refused.Provenance);
        Assert.Null(refused.SourceTopic);
    }

    [Fact]
    public void ARecordWithNoBlock_HasNoSource_AndItsHeadersAreAllItsOwn()
    {
        DeadLetter letter = ProvenanceCodec.WithoutKeys.Read(Produced("orders.dlq", 0, 0, Headers(("tenant", "acme"), ("kafkaprotobuf.something", "x"))));

        Assert.Equal(ProvenanceStatus.None, letter.Provenance);
        Assert.Null(letter.SourceTopic);
        Assert.Equal(2, letter.OriginalHeaders.Count);
        Assert.Equal("none: no block of this package says where it came from", letter.DescribeSource());
    }

    [Fact]
    public void TheWriterRefusesATierThatIsNotTheRecordsTopic_AndATierThatDoesNotFollowIt()
    {
        ConsumeResult<byte[], byte[]> record = Produced("orders", 0, 7, []);

        Assert.Throws<ArgumentException>(() => ProvenanceCodec.WithoutKeys.ToDeadLetterMessage(record, new TimeoutException(), OrdersTier1));
        Assert.Throws<ArgumentException>(() => ProvenanceCodec.WithoutKeys.ToRetryCopy(record, new TimeoutException(), null, OrdersTier2, DateTimeOffset.UnixEpoch, DateTimeOffset.UnixEpoch));
        Assert.Throws<ArgumentException>(() => ProvenanceCodec.WithoutKeys.ToRetryCopy(record, new TimeoutException(), null, new RetryTier("payments", 1), DateTimeOffset.UnixEpoch, DateTimeOffset.UnixEpoch));
    }

    [Fact]
    public void Keys_AreParsedFromText_NeverShown_AndShortOrMalformedKeysAreRefusedWithoutQuotingThem()
    {
        string first = Convert.ToBase64String(Key(1)), second = Convert.ToBase64String(Key(2)).TrimEnd('=').Replace('+', '-').Replace('/', '_');

        ProvenanceKeys keys = ProvenanceKeys.Parse("# rotated 2026-12-02\n" + first + "\n" + second + " # the old one\n");

        Assert.Equal(2, keys.Count);
        Assert.DoesNotContain(first, keys.ToString(), StringComparison.Ordinal);
        Assert.Equal(ProvenanceStatus.Verified, DeadLetterOf(Produced("orders", 0, 7, []), Keys, null, keys).Provenance);
        FormatException malformed = Assert.Throws<FormatException>(() => ProvenanceKeys.Parse(first + ",not-base64!"));
        Assert.DoesNotContain("not-base64", malformed.Message, StringComparison.Ordinal);
        Assert.Throws<ArgumentException>(() => ProvenanceKeys.Parse(Convert.ToBase64String(new byte[15])));
        Assert.Throws<FormatException>(() => ProvenanceKeys.Parse(" # nothing\n"));
    }
}
