using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tests.Support;
using Microsoft.Extensions.Hosting;
using Vectors.Telemetry.V1;
using Xunit;
using static KafkaProtobuf.Tests.EndToEnd.DeviceRecords;

namespace KafkaProtobuf.Tests.Hosting;

/// <summary>
/// Retry topics on the embedded cluster: a record whose handler failed its in-place attempts goes through the tiers at
/// their due times (read from its headers, compared with when the handler ran), its partition flowing meanwhile; the
/// handler sees it as its original; after the last tier it reaches the dead-letter topic with its whole history; a
/// failure <c>Classify</c> dead-letters goes there at once; a second registration can read the retry topics. Nothing
/// asserts on elapsed time.
/// </summary>
public sealed class HostedConsumerRetryTopicTests() : HostedConsumerTestBase("retries")
{
    private static readonly TimeSpan[] Delays = [TimeSpan.FromMilliseconds(300), TimeSpan.FromMilliseconds(600)];

    /// <summary>One handler call: what the handler saw and the retry headers of the record it was given.</summary>
    private sealed record Call(string Topic, long Offset, int Attempt, DateTimeOffset? Due, DateTimeOffset? FirstFailure, DateTimeOffset At, bool Succeeded);

    private static DateTimeOffset? Time(Headers headers, string name) =>
        headers.TryGetLastBytes(name, out byte[] bytes) ? DateTimeOffset.FromUnixTimeMilliseconds(long.Parse(Encoding.UTF8.GetString(bytes), CultureInfo.InvariantCulture)) : null;

    private static int AttemptOf(Headers headers) =>
        headers.TryGetLastBytes(RetryHeaderNames.Tier, out byte[] bytes) ? int.Parse(Encoding.UTF8.GetString(bytes), CultureInfo.InvariantCulture) : 0;

    private void CreateTopics(string topic)
    {
        Cluster.CreateTopic(topic + ".retry.1", 1);
        Cluster.CreateTopic(topic + ".retry.2", 1);
        Cluster.CreateTopic(topic + ".dlq", 1);
    }

    private static void Options(KafkaProtobufConsumerOptions options)
    {
        options.HandlerFailures.MaxAttempts = 2;
        options.HandlerFailures.Classify = e => e is ArgumentException ? HandlerFailureAction.DeadLetter : null;
        foreach (TimeSpan delay in Delays)
        {
            options.RetryTopics.Delays.Add(delay);
        }
    }

    [Fact]
    public async Task AFailingRecord_GoesThroughTheTiersAtTheirDueTimes_WhileItsPartitionFlows_SeenAsItsOriginal_AndSucceedsOnTheSecond()
    {
        ProduceAcrossPartitions("orders", 1, 10);
        CreateTopics("orders");
        var calls = new ConcurrentQueue<Call>();
        int heldOnce = 0;
        IHost host = StartHost("retries", "orders", builder => builder.Handle(async (record, _) =>
        {
            Headers headers = record.Message.Headers;
            int attempt = AttemptOf(headers);
            bool fails = (record.Offset.Value == 3 && attempt < 2) || record.Offset.Value == 7 || record.Offset.Value == 5;
            if (record.Offset.Value == 3 && attempt == 1 && Interlocked.Exchange(ref heldOnce, 1) == 0)
            {
                // Record 3 back from its tier waits, on its slot, until the records after it in its partition are handled
                // on the other slot: they can be only if the partition flowed while 3 waited in the retry topic.
                // Awaited, never blocking: a handler that completes later runs on a worker, so the consume loop goes on.
                await Task.Run(() => Wait.Until(() => Offsets(4, 10).Except([5L, 7L]).All(o => calls.Any(c => c.Offset == o && c.Succeeded)), "the records after 3 handled while 3 was in its retry topic", Deadline), CancellationToken.None);
            }

            calls.Enqueue(new Call(record.Topic, record.Offset.Value, attempt, Time(headers, RetryHeaderNames.Due), Time(headers, RetryHeaderNames.FirstFailure), DateTimeOffset.UtcNow, !fails));
            switch (record.Offset.Value)
            {
                case 5:
                    throw new ArgumentException("not a device we know"); // Classify: straight to the dead-letter topic
                case 3 or 7 when fails:
                    throw new TimeoutException("the device registry did not answer (tier " + attempt + ")");
            }
        }), options =>
        {
            Options(options);
            options.MaxConcurrentHandlers = 2; // a retried record held on one slot leaves the other to its partition
        });

        Wait.Until(() => calls.Count(c => c.Succeeded) == 8 && calls.Count(c => c.Offset == 7) == 6, "record 3 handled on tier 2 and record 7 through every tier", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        // The handler saw every record as its original, retries included.
        Assert.All(calls, c => Assert.Equal("orders", c.Topic));
        Call[] three = [.. calls.Where(c => c.Offset == 3)];
        Assert.Equal([0, 0, 1, 1, 2], three.Select(c => c.Attempt)); // two attempts in place on each, then success on tier 2
        Assert.True(three[^1].Succeeded);

        // The partition flowed: the records after 3 were handled before 3 came back from its retry topic (see the hold above).
        int firstRetry = calls.ToList().FindIndex(c => c.Offset == 3 && c.Attempt == 1);
        Assert.All(Offsets(4, 10).Except([5L, 7L]), o => Assert.InRange(calls.ToList().FindIndex(c => c.Offset == o && c.Succeeded), 0, firstRetry));

        // Due times, from the records' headers: each retry handled no sooner; tier 1 due its delay after the failure, tier 2 its delay after tier 1's.
        foreach (Call retry in calls.Where(c => c.Attempt > 0))
        {
            Assert.True(retry.At >= retry.Due, $"record {retry.Offset} handled at {retry.At:O} before its due time {retry.Due:O}");
        }

        foreach (long offset in new long[] { 3, 7 })
        {
            Call tier1 = calls.First(c => c.Offset == offset && c.Attempt == 1);
            Call tier2 = calls.First(c => c.Offset == offset && c.Attempt == 2);
            Assert.Equal(tier1.FirstFailure + Delays[0], tier1.Due);
            Assert.Equal(tier1.FirstFailure, tier2.FirstFailure);
            Assert.True(tier2.Due >= tier1.At + Delays[1] - TimeSpan.FromMilliseconds(1), $"tier 2 due {tier2.Due:O}, tier 1 handled {tier1.At:O}");
        }

        // The dead-letter topic: record 5 at once (classified), record 7 after the last tier, with its history.
        List<ConsumeResult<byte[], byte[]>> letters = ReadDeadLetters(Cluster.CreateConsumerConfig(), "orders.dlq", Deadline);
        Assert.Equal(2, letters.Count);
        ConsumeResult<byte[], byte[]> five = letters.Single(l => FirstSource(l.Message.Headers).Offset.Value == 5);
        Assert.Equal(new TopicPartitionOffset("orders", 0, 5), SourceOf(five.Message.Headers));
        Assert.False(five.Message.Headers.TryGetLastBytes(RetryHeaderNames.Tier, out _));

        ConsumeResult<byte[], byte[]> seven = letters.Single(l => FirstSource(l.Message.Headers).Offset.Value == 7);
        Assert.Equal(GoodValue(7), seven.Message.Value); // byte for byte through every hop
        Assert.Equal(Encoding.UTF8.GetBytes("k7"), seven.Message.Key);
        Assert.Equal(new TopicPartitionOffset("orders", 0, 7), FirstSource(seven.Message.Headers));
        global::KafkaProtobuf.Redrive.DeadLetter read = global::KafkaProtobuf.Redrive.DeadLetter.Read(seven);
        Assert.Equal(("orders", 0, 7L, 0), (read.SourceTopic, read.SourcePartition!.Value, read.SourceOffset!.Value, read.RedriveCount)); // as a redrive reads it
        Assert.Equal("orders.retry.2", SourceOf(seven.Message.Headers).Topic); // where it was read last
        Assert.Equal(2, AttemptOf(seven.Message.Headers));
        Assert.Equal(
            ["the device registry did not answer (tier 0)", "the device registry did not answer (tier 1)", "the device registry did not answer (tier 2)"],
            seven.Message.Headers.Where(h => h.Key == DeadLetterHeaderNames.ErrorMessage).Select(h => Encoding.UTF8.GetString(h.GetValueBytes())));
        Assert.NotNull(Time(seven.Message.Headers, RetryHeaderNames.FirstFailure));

        Assert.Equal([10L], Committed("orders", 1));
        Assert.Equal([2L], Committed("orders.retry.1", 1));
        Assert.Equal([2L], Committed("orders.retry.2", 1));
    }

    [Fact]
    public async Task ABatchsRecordThatStillFailsAfterTheSplit_GoesToTheRetryTopic_AndComesBackToTheBatchHandlerAsItsOriginal()
    {
        ProduceAcrossPartitions("bulk-orders", 1, 10);
        CreateTopics("bulk-orders");
        var handled = new ConcurrentQueue<(string Topic, long Offset, int Attempt)>();
        IHost host = StartHost("retries", "bulk-orders", builder => builder.HandleBatch((batch, _) =>
        {
            if (batch.Any(r => r.Offset.Value == 4 && AttemptOf(r.Message.Headers) == 0))
            {
                throw new TimeoutException("the warehouse did not answer");
            }

            foreach (ConsumeResult<string, Device> record in batch)
            {
                handled.Enqueue((record.Topic, record.Offset.Value, AttemptOf(record.Message.Headers)));
            }

            return Task.CompletedTask;
        }), options =>
        {
            Options(options);
            options.Batches.MaxSize = 10;
            options.Batches.MaxWait = TimeSpan.FromMilliseconds(100);
        });

        Wait.Until(() => handled.Count == 10, "every record handled", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        Assert.Equal(Offsets(0, 10), handled.Select(h => h.Offset).Order());
        Assert.All(handled, h => Assert.Equal("bulk-orders", h.Topic));
        Assert.Equal(("bulk-orders", 4L, 1), handled.Single(h => h.Offset == 4)); // from tier 1, as its original
        Assert.Equal([10L], Committed("bulk-orders", 1));
        Assert.Equal([1L], Committed("bulk-orders.retry.1", 1));
    }

    [Theory]
    [InlineData(HandlingOrder.Partition)]
    [InlineData(HandlingOrder.Key)]
    public async Task PartitionParallel_ARecordSentToItsRetryTopic_LetsItsPartitionsOtherRecordsGoOn_AndComesBackOnce(HandlingOrder order)
    {
        // Two partitions, four handlers; record 3 of each fails in place and goes to tier 1. Both partitions flow to
        // their ends meanwhile (per key too: record 3's key is its own), and each record 3 comes back once, as itself.
        ProduceAcrossPartitions("parallel-orders", 2, 10);
        CreateTopics("parallel-orders");
        var calls = new ConcurrentQueue<(int Partition, long Offset, int Attempt, DateTimeOffset? Due, DateTimeOffset At)>();
        IHost host = StartHost("retries", "parallel-orders", builder => builder.Handle(async (record, _) =>
        {
            await Task.Yield();
            int attempt = AttemptOf(record.Message.Headers);
            calls.Enqueue((record.Partition.Value, record.Offset.Value, attempt, Time(record.Message.Headers, RetryHeaderNames.Due), DateTimeOffset.UtcNow));
            if (record.Offset.Value == 3 && attempt == 0)
            {
                throw new TimeoutException("the device registry did not answer");
            }
        }), options =>
        {
            Options(options);
            options.MaxConcurrentHandlers = 4;
            options.HandlingOrder = order;
        });

        Wait.Until(() => calls.Count(c => c.Attempt == 1) == 2 && Committed("parallel-orders", 2).All(c => c == 10), "both records 3 back from tier 1, both partitions committed", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        for (int p = 0; p < 2; p++)
        {
            var partition = calls.Where(c => c.Partition == p).ToList();
            Assert.Equal(Offsets(0, 10).Where(o => o != 3), partition.Where(c => c.Offset != 3).Select(c => c.Offset).Order()); // each other record once
            Assert.Equal([0, 0, 1], partition.Where(c => c.Offset == 3).Select(c => c.Attempt)); // twice in place, once from tier 1
            var back = partition.Single(c => c.Attempt == 1);
            Assert.True(back.At >= back.Due, $"partition {p}: record 3 handled at {back.At:O}, before its due time {back.Due:O}");
        }

        Assert.Equal([2L], Committed("parallel-orders.retry.1", 1));
    }

    [Fact]
    public async Task ARetryCopyThatCannotBeWritten_IsWrittenAgain_WithoutRunningTheHandlerAgain()
    {
        ProduceAcrossPartitions("unwritten", 1, 6);
        CreateTopics("unwritten");
        var calls = new ConcurrentQueue<(long Offset, int Attempt)>();
        int producesBefore = -1;
        IHost host = StartHost("retries", "unwritten", builder => builder.Handle((record, _) =>
        {
            int attempt = AttemptOf(record.Message.Headers);
            calls.Enqueue((record.Offset.Value, attempt));
            if (record.Offset.Value == 2 && attempt == 0)
            {
                if (calls.Count(c => c.Offset == 2) == 2)
                {
                    // Its last attempt in place: the retry copy written next is refused once, as a broker without enough replicas does.
                    producesBefore = Cluster.RequestCount(KafkaApi.Produce);
                    Cluster.FailNextRequests(KafkaApi.Produce, ErrorCode.NotEnoughReplicas, 1);
                }

                throw new TimeoutException("the device registry did not answer");
            }

            return Task.CompletedTask;
        }), options =>
        {
            Options(options);
            options.CopyProducer!.EnableIdempotence = false; // so that the refused copy is not retried inside the producer
            options.CopyProducer.MessageSendMaxRetries = 0;
        });

        Wait.Until(() => calls.Any(c => c.Offset == 2 && c.Attempt == 1) && Committed("unwritten", 1)[0] == 6, "record 2 back from tier 1, the partition committed", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        Assert.InRange(Cluster.RequestCount(KafkaApi.Produce) - producesBefore, 2, int.MaxValue); // the refused write, then the one that landed
        Assert.Equal([0, 0, 1], calls.Where(c => c.Offset == 2).Select(c => c.Attempt)); // the handler ran twice in place, not again for the second write
        Assert.Equal(Offsets(0, 6), calls.Select(c => c.Offset).Distinct().Order());
        Assert.Equal([1L], Committed("unwritten.retry.1", 1)); // one copy: the refused write left nothing behind
    }

    [Fact]
    public async Task ASecondRegistration_ReadsTheRetryTopics_WhenTheFirstLeavesThemToIt()
    {
        ProduceAcrossPartitions("payments", 1, 5);
        CreateTopics("payments");
        var seen = new ConcurrentQueue<(string Consumer, string Topic, long Offset, int Attempt)>();
        Func<ConsumeResult<string, Device>, CancellationToken, Task> Handler(string consumer) => (record, _) =>
        {
            int attempt = AttemptOf(record.Message.Headers);
            seen.Enqueue((consumer, record.Topic, record.Offset.Value, attempt));
            return record.Offset.Value == 2 && attempt == 0 ? throw new TimeoutException("the bank did not answer") : Task.CompletedTask;
        };

        IHost main = StartHost("retries", "payments", builder => builder.Handle(Handler("main")), options =>
        {
            Options(options);
            options.RetryTopics.ReadRetryTopics = false; // the other registration reads them
        });
        IHost retries = StartHost("retries", "payments.retry.1", builder => builder.Handle(Handler("retries")), options =>
        {
            Options(options);
            options.RetryTopics.ReadRetryTopics = false; // its topics are the retry topics
            options.Consumer.GroupId = Group + "-retries";
        });

        Wait.Until(() => seen.Count(s => s.Consumer == "main") == 6 && seen.Any(s => s.Consumer == "retries"), "the five records handled, and the retry by the second registration", Deadline);
        await main.StopAsync().WaitAsync(Deadline);
        await retries.StopAsync().WaitAsync(Deadline);

        Assert.Equal([("retries", "payments", 2L, 1)], seen.Where(s => s.Consumer == "retries"));
        Assert.All(seen.Where(s => s.Consumer == "main"), s => Assert.Equal(0, s.Attempt)); // the first never read a retry topic
        Assert.Equal([0L, 1, 2, 2, 3, 4], seen.Where(s => s.Consumer == "main").Select(s => s.Offset)); // record 2 twice in place, then to the retry topic
        Assert.Equal([5L], Committed("payments", 1));
    }

    [Fact]
    public async Task WithKeys_EveryHopAndTheDeadLetterAreSigned_TheHandlerSeesTheOriginal_AndAnotherKeyBelievesNone()
    {
        ProduceAcrossPartitions("orders", 1, 3);
        CreateTopics("orders");
        var keys = new ProvenanceKeys([Enumerable.Range(0, 32).Select(i => (byte)(i * 3)).ToArray()]);
        var seen = new ConcurrentQueue<TopicPartitionOffset>();
        IHost host = StartHost("signed-tiers", "orders", (record, _) =>
        {
            if (record.Offset.Value == 1)
            {
                seen.Enqueue(record.TopicPartitionOffset);
                throw new TimeoutException("the stock service did not answer");
            }

            return Task.CompletedTask;
        }, options =>
        {
            Options(options);
            options.ProvenanceKeys = keys;
        });

        List<ConsumeResult<byte[], byte[]>> letters = [];
        Wait.Until(() => (letters = ReadDeadLetters(Cluster.CreateConsumerConfig(), "orders.dlq", Deadline)).Count > 0, "record 1's dead letter after both tiers", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        Assert.Equal(Enumerable.Repeat(new TopicPartitionOffset("orders", 0, 1), 6), seen); // two attempts in place and on each tier, always as its original
        global::KafkaProtobuf.Redrive.DeadLetter letter = new ProvenanceCodec(keys).Read(Assert.Single(letters));
        Assert.Equal(ProvenanceStatus.Verified, letter.Provenance);
        Assert.Equal(("orders", 0, 1L), (letter.SourceTopic, letter.SourcePartition!.Value, letter.SourceOffset!.Value));
        Assert.Equal(3, letter.Record.Message.Headers.Count(h => h.Key == DeadLetterHeaderNames.Block && Encoding.UTF8.GetString(h.GetValueBytes()).Contains(";hmac=", StringComparison.Ordinal)));
        Assert.Equal(ProvenanceStatus.Unverified, new ProvenanceCodec(new ProvenanceKeys([new byte[32]])).Read(letters[0]).Provenance);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task ARecordWrittenStraightIntoATier_WithAForgedHop_IsSeenByItsHandlerAsItsDeadLetterSaysItCameFrom(bool withKeys)
    {
        // Issue 67's third row, end to end: produced into the real tier orders.retry.1, ending with one forged hop naming
        // orders [5] @999 (signed, with keys, by the attacker's own key). The handler's view and the dead letter agree:
        // with keys, the hop does not verify (the record is where it is, no believed source); without, the boundary.
        ProduceAcrossPartitions("orders", 1, 0);
        CreateTopics("orders");
        var ownKey = new ProvenanceKeys([Enumerable.Range(0, 32).Select(i => (byte)i).ToArray()]);
        var attackersKey = new ProvenanceKeys([Enumerable.Range(0, 32).Select(i => (byte)(255 - i)).ToArray()]);
        var original = new ConsumeResult<byte[], byte[]>
        {
            TopicPartitionOffset = new TopicPartitionOffset("orders", 5, 999),
            Message = new Message<byte[], byte[]> { Key = Encoding.UTF8.GetBytes("forged"), Value = GoodValue(999), Headers = [] },
        };
        Message<byte[], byte[]> forged = new ProvenanceCodec(withKeys ? attackersKey : null)
            .ToRetryCopy(original, new TimeoutException("forged"), null, new RetryTier("orders", 1), DateTimeOffset.UnixEpoch, DateTimeOffset.UnixEpoch);
        using (IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(Cluster.CreateProducerConfig()).Build())
        {
            await producer.ProduceAsync(new TopicPartition("orders.retry.1", 0), forged).WaitAsync(Deadline);
        }

        var seen = new ConcurrentQueue<TopicPartitionOffset>();
        IHost host = StartHost("tier-forgery", "orders", (record, _) =>
        {
            seen.Enqueue(record.TopicPartitionOffset);
            throw new TimeoutException("still failing");
        }, options =>
        {
            Options(options);
            options.ProvenanceKeys = withKeys ? ownKey : null;
        });

        List<ConsumeResult<byte[], byte[]>> letters = [];
        Wait.Until(() => (letters = ReadDeadLetters(Cluster.CreateConsumerConfig(), "orders.dlq", Deadline)).Count > 0, "the forged copy's dead letter after both tiers", Deadline);
        await host.StopAsync().WaitAsync(Deadline);
        global::KafkaProtobuf.Redrive.DeadLetter letter = new ProvenanceCodec(withKeys ? ownKey : null).Read(Assert.Single(letters));

        if (withKeys)
        {
            Assert.Equal(ProvenanceStatus.Unverified, letter.Provenance);
            Assert.Null(letter.SourceTopic);
            Assert.All(seen, p => Assert.StartsWith("orders.retry.", p.Topic, StringComparison.Ordinal)); // where it is: never as orders [5] @999
        }
        else
        {
            Assert.Equal(ProvenanceStatus.Unchecked, letter.Provenance);
            Assert.Equal(("orders", 5, 999L), (letter.SourceTopic, letter.SourcePartition!.Value, letter.SourceOffset!.Value));
            Assert.All(seen, p => Assert.Equal(new TopicPartitionOffset("orders", 5, 999), p));
        }

        Assert.Equal(4, seen.Count); // two attempts on each tier
    }

    [Fact]
    public async Task ForgedRetryAndSourceHeaders_OnTheMainTopic_NeitherHoldItsPartition_NorCrashTheLoop_NorRouteOrDisguiseTheRecord()
    {
        Cluster.CreateTopic("forged", 1);
        CreateTopics("forged");
        Headers Forged() => new()
        {
            { RetryHeaderNames.Due, Encoding.UTF8.GetBytes("99999999999999999") }, // past DateTimeOffset's range
            { RetryHeaderNames.Tier, Encoding.UTF8.GetBytes("2147483647") },
            { DeadLetterHeaderNames.SourceTopic, Encoding.UTF8.GetBytes("payments") },
            { DeadLetterHeaderNames.SourcePartition, Encoding.UTF8.GetBytes("7") },
            { DeadLetterHeaderNames.SourceOffset, Encoding.UTF8.GetBytes("99") },
        };
        using (IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(Cluster.CreateProducerConfig()).Build())
        {
            for (int i = 0; i < 5; i++)
            {
                Headers headers = i is 1 or 3 ? Forged() : [];
                if (i == 3)
                {
                    headers.Add(RetryHeaderNames.Due, Encoding.UTF8.GetBytes("253402300799999")); // the year 9999, the last one counts
                }

                producer.Produce(new TopicPartition("forged", 0), new Message<byte[], byte[]> { Key = Encoding.UTF8.GetBytes("k" + i), Value = GoodValue(i), Headers = headers });
            }

            Assert.Equal(0, producer.Flush(Deadline));
        }

        var calls = new ConcurrentQueue<(string Topic, int Partition, long Offset)>();
        IHost host = StartHost("retries", "forged", builder => builder.Handle((record, _) =>
        {
            calls.Enqueue((record.Topic, record.Partition.Value, record.Offset.Value));
            return record.Offset.Value == 1 ? throw new TimeoutException("the device registry did not answer") : Task.CompletedTask;
        }), Options);

        Wait.Until(
            () => calls.Count(c => c.Offset == 1) == 6 && calls.Any(c => c.Offset == 4) && Committed("forged.retry.2", 1)[0] == 1,
            "record 1 through both tiers to the dead-letter topic, and the records after it handled",
            Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        Assert.All(calls, c => Assert.Equal(("forged", 0), (c.Topic, c.Partition))); // never the forged payments [7] @99

        // Whether 3 and 4 come before 1 is back from its first tier (due 300 ms later) is the thread pool's: with one
        // slot, a worker started late finds the retry topic's record ready beside them.
        Assert.Equal([0L, 1, 1, 2], calls.Take(4).Select(c => c.Offset)); // 1 twice in place, before 2
        Assert.Equal([0L, 2, 3, 4], calls.Where(c => c.Offset != 1).Select(c => c.Offset)); // each once, in order: 3 not held for the year 9999
        ConsumeResult<byte[], byte[]> letter = Assert.Single(ReadDeadLetters(Cluster.CreateConsumerConfig(), "forged.dlq", Deadline));
        Assert.Equal("forged.retry.2", SourceOf(letter.Message.Headers).Topic); // through this topic's own tiers, not payments'
        global::KafkaProtobuf.Redrive.DeadLetter read = global::KafkaProtobuf.Redrive.DeadLetter.Read(letter); // as a redrive reads it: the first hop's block, never the forged headers
        Assert.Equal(("forged", 0, 1L), (read.SourceTopic, read.SourcePartition!.Value, read.SourceOffset!.Value));
        Assert.Equal(typeof(TimeoutException).FullName, read.ErrorCode);
        Assert.Equal([5L], Committed("forged", 1));
        Assert.Equal([1L], Committed("forged.retry.1", 1));
    }

    private static IEnumerable<long> Offsets(int from, int to) => Enumerable.Range(from, to - from).Select(o => (long)o);

    /// <summary>The first kafkaprotobuf.source.* headers: where the record was first read.</summary>
    private static TopicPartitionOffset FirstSource(Headers headers)
    {
        string First(string name) => Encoding.UTF8.GetString(headers.First(h => h.Key == name).GetValueBytes());
        return new TopicPartitionOffset(
            First(DeadLetterHeaderNames.SourceTopic),
            int.Parse(First(DeadLetterHeaderNames.SourcePartition), CultureInfo.InvariantCulture),
            long.Parse(First(DeadLetterHeaderNames.SourceOffset), CultureInfo.InvariantCulture));
    }

    [Fact]
    public async Task ARestart_WhileARecordWaitsInItsRetryTopic_HandlesItOnce_NoSoonerThanDue_AfterTheRestart()
    {
        // Record 2 fails its one attempt and waits 8 s in the retry topic; the consumer stops and a new one starts in its
        // place meanwhile. The new one finds the record in the retry topic (not committed past it) and waits out the rest.
        ProduceAcrossPartitions("restarted", 1, 6);
        Cluster.CreateTopic("restarted.retry.1", 1);
        Cluster.CreateTopic("restarted.dlq", 1);
        var calls = new ConcurrentQueue<(string Host, bool Retry, long Offset, DateTimeOffset? Due, DateTimeOffset At)>();

        Func<ConsumeResult<string, Device>, CancellationToken, Task> Handler(string host) => (record, _) =>
        {
            bool retry = AttemptOf(record.Message.Headers) > 0;
            calls.Enqueue((host, retry, record.Offset.Value, Time(record.Message.Headers, RetryHeaderNames.Due), DateTimeOffset.UtcNow));
            return record.Offset.Value == 2 && !retry ? Task.FromException(new TimeoutException("no answer")) : Task.CompletedTask;
        };

        static void WaitEight(KafkaProtobufConsumerOptions options)
        {
            options.HandlerFailures.MaxAttempts = 1;
            options.RetryTopics.Delays.Add(TimeSpan.FromSeconds(8));
        }

        IHost before = StartHost("restarted", "restarted", Handler("before"), WaitEight);
        Wait.Until(() => Committed("restarted", 1)[0] == 6 && EndOffset("restarted.retry.1") == 1, "the topic handled and the failed record's copy in the retry topic", Deadline);
        await before.StopAsync().WaitAsync(Deadline);
        bool stoppedBeforeDue = !calls.Any(c => c.Retry); // for the message only: a very slow machine may reach the due time first
        IHost after = StartHost("restarted", "restarted", Handler("after"), WaitEight);
        Wait.Until(() => calls.Any(c => c.Retry) && Committed("restarted.retry.1", 1)[0] == 1, "the waiting record handled after the restart and committed", Deadline);
        await after.StopAsync().WaitAsync(Deadline);

        var retried = calls.Where(c => c.Retry).ToList();
        Assert.Single(retried);
        Assert.Equal(2L, retried[0].Offset); // seen as its original
        Assert.True(retried[0].At >= retried[0].Due, $"handled at {retried[0].At:O}, before its due time {retried[0].Due:O}");
        Assert.True(!stoppedBeforeDue || retried[0].Host == "after", "handled by the consumer that stopped, after it stopped");
        Assert.Equal([0L, 1, 2, 3, 4, 5], calls.Where(c => !c.Retry && c.Host == "before").Select(c => c.Offset).Order());
        Assert.DoesNotContain(calls, c => !c.Retry && c.Host == "after"); // the main topic's records were all committed before
    }

    private long EndOffset(string topic)
    {
        using IConsumer<Ignore, Ignore> reader = new ConsumerBuilder<Ignore, Ignore>(Cluster.CreateConsumerConfig(Group + "-watermarks")).Build();
        return reader.QueryWatermarkOffsets(new TopicPartition(topic, 0), TimeSpan.FromSeconds(10)).High.Value;
    }
}
