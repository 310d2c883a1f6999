using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.Json;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.Hosting.Retrying;
using KafkaProtobuf.Redrive;
using Xunit;

namespace KafkaProtobuf.Tests.DeadLetters;

/// <summary>
/// Dead letters, retry copies and a redriven record as 1.0.0 and main before the provenance codec (affb478) wrote them
/// (Vectors/dead-letters-*.json: a hosted consumer with two retry tiers on the embedded cluster, then a redrive, then
/// again), read by today's codec as they were meant: the same sources, failures and redrive counts; a copy in flight
/// across the upgrade still handled as its original; with keys switched on later, unsigned dead letters still believed
/// unless signatures are required.
/// </summary>
public sealed class WrittenBeforeTests
{
    private static readonly ProvenanceKeys Keys = new([Enumerable.Range(0, 32).Select(i => (byte)i).ToArray()]);

    public static TheoryData<string> Versions => new() { "1.0.0", "affb478" };

    private static Dictionary<string, ConsumeResult<byte[], byte[]>> Records(string version)
    {
        using JsonDocument json = JsonDocument.Parse(File.ReadAllText(Path.Combine(AppContext.BaseDirectory, "Vectors", "dead-letters-" + version + ".json")));
        var records = new Dictionary<string, ConsumeResult<byte[], byte[]>>(StringComparer.Ordinal);
        foreach (JsonElement record in json.RootElement.GetProperty("records").EnumerateArray())
        {
            var headers = new Headers();
            foreach (JsonElement header in record.GetProperty("headers").EnumerateArray())
            {
                headers.Add(header[0].GetString()!, header[1].ValueKind == JsonValueKind.Null ? null : Convert.FromBase64String(header[1].GetString()!));
            }

            records[record.GetProperty("name").GetString()!] = new ConsumeResult<byte[], byte[]>
            {
                TopicPartitionOffset = new TopicPartitionOffset(record.GetProperty("topic").GetString()!, record.GetProperty("partition").GetInt32(), record.GetProperty("offset").GetInt64()),
                Message = new Message<byte[], byte[]>
                {
                    Key = Convert.FromBase64String(record.GetProperty("key").GetString()!),
                    Value = Convert.FromBase64String(record.GetProperty("value").GetString()!),
                    Headers = headers,
                    Timestamp = new Timestamp(record.GetProperty("timestamp").GetInt64(), TimestampType.CreateTime),
                },
            };
        }

        return records;
    }

    private static (string?, int?, long?, int) Read(DeadLetter letter) => (letter.SourceTopic, letter.SourcePartition, letter.SourceOffset, letter.RedriveCount);

    [Theory]
    [MemberData(nameof(Versions))]
    public void TheirDeadLetters_ReadAsTheyWereMeant(string version)
    {
        Dictionary<string, ConsumeResult<byte[], byte[]>> records = Records(version);

        DeadLetter poison = DeadLetter.Read(records["poison"]);
        Assert.Equal(("orders", (int?)0, (long?)0, 0), Read(poison));
        Assert.Equal(("UnknownMagicByte", "value", (int?)0), (poison.ErrorCode, poison.Component, poison.ErrorOffset));
        Assert.Equal(["tenant"], poison.OriginalHeaders.Select(h => h.Key)); // the dead-lettering's own trace header is not the record's

        DeadLetter afterTiers = DeadLetter.Read(records["after-tiers"]);
        Assert.Equal(("orders", (int?)0, (long?)1, 0), Read(afterTiers)); // through both tiers: where it was first read
        Assert.Equal(("System.TimeoutException", "handler"), (afterTiers.ErrorCode, afterTiers.Component));
        Assert.Equal(["tenant", "traceparent"], afterTiers.OriginalHeaders.Select(h => h.Key));

        Assert.Equal(("orders", (int?)0, (long?)3, 1), Read(DeadLetter.Read(records["poison-redriven"])));
        DeadLetter afterTiersRedriven = DeadLetter.Read(records["after-tiers-redriven"]);
        Assert.Equal(("orders", (int?)0, (long?)4, 1), Read(afterTiersRedriven));
        Assert.Equal(["tenant", "traceparent"], afterTiersRedriven.OriginalHeaders.Select(h => h.Key));
        Assert.All(new[] { poison, afterTiers, afterTiersRedriven }, l => Assert.Equal(ProvenanceStatus.Unchecked, l.Provenance));
    }

    [Theory]
    [MemberData(nameof(Versions))]
    public void WithKeysSwitchedOnLater_TheirDeadLettersStayRedrivable_UnlessSignaturesAreRequired(string version)
    {
        Dictionary<string, ConsumeResult<byte[], byte[]>> records = Records(version);
        var strict = new ProvenanceCodec(new ProvenanceKeys([Enumerable.Range(0, 32).Select(i => (byte)i).ToArray()], requireSignatures: true));

        foreach (string name in new[] { "poison", "after-tiers", "poison-redriven", "after-tiers-redriven" })
        {
            Assert.Equal(Read(DeadLetter.Read(records[name])), Read(new ProvenanceCodec(Keys).Read(records[name])));
            DeadLetter refused = strict.Read(records[name]);
            Assert.Equal(ProvenanceStatus.Unverified, refused.Provenance);
            Assert.Null(refused.SourceTopic);
        }
    }

    [Theory]
    [MemberData(nameof(Versions))]
    public void TheirRetryCopiesInFlight_AreHandledAsTheirOriginal_AndDeadLetteredFromThere(string version)
    {
        Dictionary<string, ConsumeResult<byte[], byte[]>> records = Records(version);
        var options = new RetryTopicOptions { Delays = { TimeSpan.FromMilliseconds(200), TimeSpan.FromMilliseconds(300) } };
        var tiers = new RetryTiers(options, ["orders", "orders.retry.1", "orders.retry.2"], ProvenanceCodec.WithoutKeys, () => DateTimeOffset.FromUnixTimeMilliseconds(0));

        Assert.Equal(new TopicPartitionOffset("orders", 0, 1), AsOriginal(tiers, records["retry-1"]).TopicPartitionOffset);
        Assert.Equal(new TopicPartitionOffset("orders", 0, 1), AsOriginal(tiers, records["retry-2"]).TopicPartitionOffset);
        Assert.Equal(new TopicPartitionOffset("orders", 0, 4), AsOriginal(tiers, records["retry-1-redriven"]).TopicPartitionOffset);

        // Its due time, as its hop wrote it.
        Assert.True(ProvenanceCodec.WithoutKeys.TryReadRetryCopy(records["retry-1"], new RetryTier("orders", 1), out _, out DateTimeOffset? due));
        Assert.Equal(long.Parse(Encoding.UTF8.GetString(records["retry-1"].Message.Headers.GetLastBytes(RetryHeaderNames.Due)), System.Globalization.CultureInfo.InvariantCulture), due!.Value.ToUnixTimeMilliseconds());

        // Failed again after the upgrade: tier 2's copy, then a dead letter, both today's blocks on the old hops.
        ConsumeResult<byte[], byte[]> fromTier1 = records["retry-1"];
        RetryTier? next = tiers.NextTier(fromTier1, tiers.TierOf(fromTier1.Topic));
        Assert.Equal(new RetryTier("orders", 2), next);
        Message<byte[], byte[]> copy = tiers.Copy(fromTier1, new TimeoutException("again"), next!, out _);
        var onTier2 = new ConsumeResult<byte[], byte[]> { TopicPartitionOffset = new TopicPartitionOffset("orders.retry.2", 0, 9), Message = copy };
        Assert.Equal(new TopicPartitionOffset("orders", 0, 1), AsOriginal(tiers, onTier2).TopicPartitionOffset);
        DeadLetter letter = DeadLetter.Read(new ConsumeResult<byte[], byte[]>
        {
            TopicPartitionOffset = new TopicPartitionOffset("orders.dlq", 0, 9),
            Message = ProvenanceCodec.WithoutKeys.ToDeadLetterMessage(onTier2, new TimeoutException("for good"), new RetryTier("orders", 2)),
        });
        Assert.Equal(("orders", (int?)0, (long?)1, 0), Read(letter));
        Assert.Equal(["tenant", "traceparent"], letter.OriginalHeaders.Select(h => h.Key));

        // A consumer that signs does not believe unsigned hops: the copy in flight is handled where it is (docs/dead-letters.md).
        var signing = new RetryTiers(options, ["orders", "orders.retry.1", "orders.retry.2"], new ProvenanceCodec(Keys), () => DateTimeOffset.FromUnixTimeMilliseconds(0));
        Assert.Same(records["retry-1"], AsOriginal(signing, records["retry-1"]));
    }

    [Theory]
    [MemberData(nameof(Versions))]
    public void TheirRedrivenRecord_FailingAgain_CountsTheirRedrive(string version)
    {
        ConsumeResult<byte[], byte[]> redriven = Records(version)["redriven-record"];

        DeadLetter letter = DeadLetter.Read(new ConsumeResult<byte[], byte[]>
        {
            TopicPartitionOffset = new TopicPartitionOffset("orders.dlq", 0, 20),
            Message = redriven.ToDeadLetterMessage(new TimeoutException("again")),
        });

        Assert.Equal(("orders", (int?)0, (long?)4, 1), Read(letter));
        Assert.Equal(["tenant", "traceparent"], letter.OriginalHeaders.Select(h => h.Key));
    }

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
