using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Redrive;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tests.Shared;
using Xunit;

// RedriveOptions.DryRun is obsolete (a plan is the dry run) but shipped: it still dry-runs, through the plan's one path.
#pragma warning disable CS0618

namespace KafkaProtobuf.Tests.Redrive;

/// <summary>
/// <see cref="DeadLetterRedrive"/> on the embedded cluster: dead letters of handler failures written back byte for byte
/// after a fix, filtered, stopped and resumed, held by the loop limit, and a dry run that writes nothing. Every wait
/// has a deadline; nothing asserts on time.
/// </summary>
public sealed class DeadLetterRedriveTests : IDisposable
{
    private const string Topic = "orders";
    private const string DeadLetterTopic = "orders.dlq";
    private const int Records = 6;
    private static readonly TimeSpan Deadline = TimeSpan.FromSeconds(60);

    private readonly EmbeddedKafkaCluster _cluster = EmbeddedKafkaCluster.Start(1);

    public DeadLetterRedriveTests()
    {
        _cluster.CreateTopic(Topic, 3);
        _cluster.CreateTopic(DeadLetterTopic, 2);
    }

    public void Dispose() => _cluster.Dispose();

    private ClientConfig Kafka => new() { BootstrapServers = _cluster.BootstrapServers };

    /// <summary>Record <paramref name="i"/> as the handler saw it: in partition i % 3 of orders, with a header of its own.</summary>
    private static ConsumeResult<byte[], byte[]> Original(int i, Headers? extra = null)
    {
        var headers = new Headers { { "trace", Encoding.UTF8.GetBytes("t" + i) } };
        foreach (IHeader header in (IEnumerable<IHeader>?)extra ?? [])
        {
            headers.Add(header.Key, header.GetValueBytes());
        }

        return new ConsumeResult<byte[], byte[]>
        {
            TopicPartitionOffset = new TopicPartitionOffset(Topic, i % 3, 100 + i),
            Message = new Message<byte[], byte[]> { Key = Encoding.UTF8.GetBytes("k" + i), Value = [0, 0, 0, 0, 1, 0, (byte)i], Headers = headers },
        };
    }

    /// <summary>Dead-letters records 0..n-1 as a handler's failures: even ones timed out, odd ones were invalid.</summary>
    private void DeadLetter(int n, Func<int, Headers?>? extra = null)
    {
        using IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(_cluster.CreateProducerConfig()).Build();
        for (int i = 0; i < n; i++)
        {
            Exception failure = i % 2 == 0 ? new TimeoutException("slow") : new InvalidOperationException("bad");
            producer.Produce(new TopicPartition(DeadLetterTopic, i % 2), Original(i, extra?.Invoke(i)).ToDeadLetterMessage(failure));
        }

        Assert.Equal(0, producer.Flush(Deadline));
    }

    /// <summary>Every record of a topic as it is now.</summary>
    private List<ConsumeResult<byte[], byte[]>> ReadAll(string topic, int partitions)
    {
        using IConsumer<byte[], byte[]> consumer = new ConsumerBuilder<byte[], byte[]>(_cluster.CreateConsumerConfig()).Build();
        var records = new List<ConsumeResult<byte[], byte[]>>();
        var ends = Enumerable.Range(0, partitions).Select(p => new TopicPartition(topic, p)).ToDictionary(p => p, p => consumer.QueryWatermarkOffsets(p, Deadline).High.Value);
        consumer.Assign(ends.Keys.Select(p => new TopicPartitionOffset(p, Offset.Beginning)));
        var positions = ends.Keys.ToDictionary(p => p, _ => 0L);
        using var deadline = new CancellationTokenSource(Deadline);
        while (positions.Any(p => p.Value < ends[p.Key]))
        {
            ConsumeResult<byte[], byte[]> record = consumer.Consume(deadline.Token);
            records.Add(record);
            positions[record.TopicPartition] = record.Offset.Value + 1;
        }

        return records;
    }

    private static string Header(ConsumeResult<byte[], byte[]> record, string name) =>
        Encoding.UTF8.GetString(record.Message.Headers.GetLastBytes(name));

    private static string Key(ConsumeResult<byte[], byte[]> record) => Encoding.UTF8.GetString(record.Message.Key);

    [Fact]
    public void ARedriveAfterAFix_WritesEachRecordBack_ByteForByte_AndASecondRunNothing()
    {
        DeadLetter(Records);

        RedriveSummary summary = DeadLetterRedrive.Run(Kafka, new RedriveOptions { DeadLetterTopic = DeadLetterTopic, RunId = "run-1" });

        Assert.Equal(Records, summary.Written);
        Assert.True(summary.Completed, summary.ToString());
        List<ConsumeResult<byte[], byte[]>> back = ReadAll(Topic, 3);
        Assert.Equal(Records, back.Count);
        foreach (ConsumeResult<byte[], byte[]> record in back)
        {
            int i = int.Parse(Key(record)[1..], System.Globalization.CultureInfo.InvariantCulture);
            ConsumeResult<byte[], byte[]> original = Original(i);
            Assert.Equal(original.Message.Value, record.Message.Value);

            // The record's own headers, then the redrive's; none of those dead-lettering added.
            Assert.Equal(["trace", RedriveHeaderNames.Count, RedriveHeaderNames.Time, RedriveHeaderNames.Run, DeadLetterHeaderNames.Block], record.Message.Headers.Select(h => h.Key));
            Assert.Equal("t" + i, Header(record, "trace"));
            Assert.Equal("1", Header(record, RedriveHeaderNames.Count));
            Assert.Equal("run-1", Header(record, RedriveHeaderNames.Run));
            Assert.True(DateTimeOffset.TryParse(Header(record, RedriveHeaderNames.Time), out _));
        }

        // The group remembers: the same run again finds nothing new.
        RedriveSummary again = DeadLetterRedrive.Run(Kafka, new RedriveOptions { DeadLetterTopic = DeadLetterTopic });
        Assert.Equal(0, again.Written);
        Assert.True(again.Completed);
        Assert.Equal(Records, ReadAll(Topic, 3).Count);
    }

    [Fact]
    public void AFilteredRun_WritesOnlyWhatMatches_AndAnotherFilterHasProgressOfItsOwn()
    {
        DeadLetter(Records);

        RedriveSummary timeouts = DeadLetterRedrive.Run(Kafka, new RedriveOptions { DeadLetterTopic = DeadLetterTopic, ErrorCode = typeof(TimeoutException).FullName });
        Assert.Equal(Records / 2, timeouts.Written);
        Assert.Equal(Records / 2, timeouts.SkippedByFilter);
        Assert.Equal(["k0", "k2", "k4"], ReadAll(Topic, 3).Select(Key).Order());

        RedriveSummary invalid = DeadLetterRedrive.Run(Kafka, new RedriveOptions { DeadLetterTopic = DeadLetterTopic, ErrorCode = typeof(InvalidOperationException).FullName, Component = "handler" });
        Assert.Equal(Records / 2, invalid.Written);
        Assert.Equal(["k0", "k1", "k2", "k3", "k4", "k5"], ReadAll(Topic, 3).Select(Key).Order());

        // By key and by source offset.
        RedriveSummary one = DeadLetterRedrive.Run(Kafka, new RedriveOptions { DeadLetterTopic = DeadLetterTopic, Key = Encoding.UTF8.GetBytes("k5"), DryRun = true });
        Assert.Equal(1, one.Written);
        RedriveSummary window = DeadLetterRedrive.Run(Kafka, new RedriveOptions { DeadLetterTopic = DeadLetterTopic, FromSourceOffset = 102, ToSourceOffset = 104, DryRun = true });
        Assert.Equal(2, window.Written);
    }

    [Fact]
    public void AStoppedRun_ResumesWhereItStopped_NoRecordTwice_NoneSkipped()
    {
        DeadLetter(Records);
        using var stop = new CancellationTokenSource();
        int seen = 0;

        RedriveSummary first = DeadLetterRedrive.Run(Kafka, new RedriveOptions { DeadLetterTopic = DeadLetterTopic }, (_, _) =>
        {
            if (++seen == 2)
            {
                stop.Cancel();
            }
        }, stop.Token);

        Assert.False(first.Completed);
        Assert.Equal(2, first.Written);
        RedriveSummary second = DeadLetterRedrive.Run(Kafka, new RedriveOptions { DeadLetterTopic = DeadLetterTopic });
        Assert.True(second.Completed);
        Assert.Equal(Records - 2, second.Written);
        Assert.Equal(["k0", "k1", "k2", "k3", "k4", "k5"], ReadAll(Topic, 3).Select(Key).Order());
    }

    [Fact]
    public void ARecordRedrivenMaxRedrivesTimes_IsSkipped_UnlessForced()
    {
        // Record 0 came back three times already; record 1 once (each with the headers its last redrive wrote).
        DeadLetter(2, i => new Headers
        {
            { RedriveHeaderNames.Count, Encoding.UTF8.GetBytes(i == 0 ? "3" : "1") },
            { RedriveHeaderNames.Time, Encoding.UTF8.GetBytes("2026-11-28T10:00:00.000Z") },
            { RedriveHeaderNames.Run, Encoding.UTF8.GetBytes("earlier-run") },
        });

        RedriveSummary held = DeadLetterRedrive.Run(Kafka, new RedriveOptions { DeadLetterTopic = DeadLetterTopic, GroupId = "held" });
        Assert.Equal(1, held.SkippedForLoops);
        Assert.Equal(1, held.Written);
        Assert.Equal("2", Header(Assert.Single(ReadAll(Topic, 3)), RedriveHeaderNames.Count));

        RedriveSummary forced = DeadLetterRedrive.Run(Kafka, new RedriveOptions { DeadLetterTopic = DeadLetterTopic, GroupId = "forced", Force = true });
        Assert.Equal(2, forced.Written);
        ConsumeResult<byte[], byte[]> again = ReadAll(Topic, 3).Single(r => Key(r) == "k0");
        Assert.Equal("4", Header(again, RedriveHeaderNames.Count));
        Assert.Single(again.Message.Headers, h => h.Key == RedriveHeaderNames.Count); // the old count replaced, not kept beside
    }

    [Fact]
    public void ADryRun_WritesNothing_AndCommitsNothing()
    {
        DeadLetter(Records);
        var said = new List<RedriveOutcome>();

        RedriveSummary dry = DeadLetterRedrive.Run(Kafka, new RedriveOptions { DeadLetterTopic = DeadLetterTopic, DryRun = true }, (_, outcome) => said.Add(outcome));

        Assert.True(dry.DryRun);
        Assert.Equal(Records, dry.Written);
        Assert.Equal(Enumerable.Repeat(RedriveOutcome.Written, Records), said);
        Assert.Empty(ReadAll(Topic, 3));
        Assert.Equal(Records, DeadLetterRedrive.Run(Kafka, new RedriveOptions { DeadLetterTopic = DeadLetterTopic }).Written);
    }

    [Fact]
    public void RecordsWithoutSourceHeaders_AreSkippedAndCounted_AndKeepSourcePartitionWritesWhereTheyWere()
    {
        DeadLetter(3);
        using (IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(_cluster.CreateProducerConfig()).Build())
        {
            producer.Produce(new TopicPartition(DeadLetterTopic, 0), new Message<byte[], byte[]> { Value = [1, 2, 3] });
            Assert.Equal(0, producer.Flush(Deadline));
        }

        RedriveSummary summary = DeadLetterRedrive.Run(Kafka, new RedriveOptions { DeadLetterTopic = DeadLetterTopic, KeepSourcePartition = true });

        Assert.Equal(1, summary.SkippedWithoutSource);
        Assert.Equal(3, summary.Written);
        Assert.All(ReadAll(Topic, 3), r => Assert.Equal(int.Parse(Key(r)[1..], System.Globalization.CultureInfo.InvariantCulture) % 3, r.Partition.Value));
    }

    [Fact]
    public void AWriteThatFails_StopsTheRun_CommitsNothingPastIt_AndTheNextRunWritesIt()
    {
        DeadLetter(Records);
        var kafka = new ClientConfig { BootstrapServers = _cluster.BootstrapServers };
        kafka.Set("topic.metadata.propagation.max.ms", "500"); // an unknown topic fails its writes soon

        RedriveSummary failed = DeadLetterRedrive.Run(kafka, new RedriveOptions { DeadLetterTopic = DeadLetterTopic, TargetTopic = "orders.fixed" });

        Assert.False(failed.Completed);
        Assert.True(failed.Failed > 0, failed.ToString());
        Assert.Contains("orders.fixed", failed.Failure, StringComparison.Ordinal);

        // The topic made, the same run again writes every record: none was committed as written.
        _cluster.CreateTopic("orders.fixed", 1);
        RedriveSummary retried = DeadLetterRedrive.Run(kafka, new RedriveOptions { DeadLetterTopic = DeadLetterTopic, TargetTopic = "orders.fixed" });
        Assert.True(retried.Completed, retried.ToString());
        Assert.Equal(["k0", "k1", "k2", "k3", "k4", "k5"], ReadAll("orders.fixed", 1).Select(Key).Order());
    }

    [Fact]
    public void ProgressThatCannotBeCommitted_IsSaid_AndTheNextRunWritesThoseRecordsAgain_NoneLost()
    {
        DeadLetter(Records);
        _cluster.FailNextRequests(KafkaApi.OffsetCommit, ErrorCode.GroupAuthorizationFailed, 1000);

        RedriveSummary uncommitted = DeadLetterRedrive.Run(Kafka, new RedriveOptions { DeadLetterTopic = DeadLetterTopic });

        Assert.Equal(Records, uncommitted.Written);
        Assert.False(uncommitted.Completed);
        Assert.Contains("progress could not be committed", uncommitted.Failure, StringComparison.Ordinal);

        // At least once: the records are written again by the next run, none lost.
        _cluster.ClearRequestFailures(KafkaApi.OffsetCommit);
        RedriveSummary again = DeadLetterRedrive.Run(Kafka, new RedriveOptions { DeadLetterTopic = DeadLetterTopic });
        Assert.True(again.Completed, again.ToString());
        Assert.Equal(Records, again.Written);
        Assert.Equal(Enumerable.Range(0, Records).SelectMany(i => new[] { "k" + i, "k" + i }).Order(), ReadAll(Topic, 3).Select(Key).Order());
    }

    [Fact]
    public void OptionsThatCannotWork_AreRefused_AndAMissingTopicIsSaid()
    {
        ArgumentException e = Assert.ThrowsAny<ArgumentException>(() => DeadLetterRedrive.Run(Kafka, new RedriveOptions { DeadLetterTopic = DeadLetterTopic, TargetTopic = DeadLetterTopic }));
        Assert.Contains("TargetTopic is the dead-letter topic itself", e.Message, StringComparison.Ordinal);
        Assert.ThrowsAny<ArgumentException>(() => DeadLetterRedrive.Run(Kafka, new RedriveOptions()));
        InvalidOperationException missing = Assert.Throws<InvalidOperationException>(() => DeadLetterRedrive.Run(Kafka, new RedriveOptions { DeadLetterTopic = "nowhere.dlq" }));
        Assert.Contains("nowhere.dlq", missing.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task APlan_WritesWhatItsDryRunShowed_NotWhatCameAfter_AndOnlyOnce()
    {
        DeadLetter(4);
        ArgumentException dryRunAsked = Assert.Throws<ArgumentException>(() => { _ = DeadLetterRedrive.PlanAsync(Kafka, new RedriveOptions { DeadLetterTopic = DeadLetterTopic, DryRun = true }); });
        Assert.Contains("A plan is a dry run already", dryRunAsked.Message, StringComparison.Ordinal); // refused at the call, not ignored
        RedrivePlan plan = await DeadLetterRedrive.PlanAsync(Kafka, new RedriveOptions { DeadLetterTopic = DeadLetterTopic }, CancellationToken.None).WaitAsync(Deadline);

        Assert.Equal(RedrivePlanState.Planned, plan.State);
        Assert.Equal(4, plan.DryRun.Written);
        Assert.Equal(["k0", "k1", "k2", "k3"], plan.DeadLetters.Select(e => "k" + (e.SourceOffset - 100)).Order());
        Assert.All(plan.DeadLetters, e => Assert.Equal(RedriveOutcome.Written, e.Outcome));
        Assert.Empty(ReadAll(Topic, 3)); // the dry run wrote nothing

        DeadLetter(6); // k0..k5 again: six more dead letters arrive after the dry run
        RedriveSummary run = await plan.RunAsync(CancellationToken.None).WaitAsync(Deadline);

        Assert.True(run.Completed, run.ToString());
        Assert.Equal(4, run.Written);
        Assert.Equal((4L, 0L, 0L), (plan.Written, plan.Skipped, plan.Failed));
        Assert.Equal(RedrivePlanState.Completed, plan.State);
        Assert.Equal(4, ReadAll(Topic, 3).Count);
        InvalidOperationException again = await Assert.ThrowsAsync<InvalidOperationException>(() => plan.RunAsync(CancellationToken.None));
        Assert.Contains(RedriveOutcomes.Describe(RedriveRefusal.Completed), again.Message, StringComparison.Ordinal);

        RedrivePlan next = await DeadLetterRedrive.PlanAsync(Kafka, new RedriveOptions { DeadLetterTopic = DeadLetterTopic }, CancellationToken.None).WaitAsync(Deadline);
        Assert.Equal(6, next.DryRun.Written); // what came after: the next plan's
    }

    [Fact]
    public async Task AStoppedPlan_ResumesWhereItStopped_AndTwoPlansOfOneFilterNeverRunAtOnce()
    {
        DeadLetter(Records);
        var options = new RedriveOptions { DeadLetterTopic = DeadLetterTopic, ErrorCode = typeof(TimeoutException).FullName };
        RedrivePlan plan = await DeadLetterRedrive.PlanAsync(Kafka, options, CancellationToken.None).WaitAsync(Deadline);
        RedrivePlan twin = await DeadLetterRedrive.PlanAsync(Kafka, options, CancellationToken.None).WaitAsync(Deadline);
        Assert.Equal(3, plan.DryRun.Written);
        Assert.Equal(3, plan.DryRun.SkippedByFilter);
        Assert.DoesNotContain(plan.DeadLetters, e => e.Outcome == RedriveOutcome.SkippedByFilter); // left out by a filter: counted, not listed

        using var stop = new CancellationTokenSource();
        var release = new ManualResetEventSlim();
        int written = 0;
        Task<RedriveSummary> running = plan.RunAsync(
            (_, outcome) =>
            {
                if (outcome == RedriveOutcome.Written && ++written == 1)
                {
                    stop.Cancel();
                    release.Wait(Deadline); // holds the run until the twin was refused
                }
            },
            stop.Token);
        InvalidOperationException refused = Assert.Throws<InvalidOperationException>(() => { _ = twin.RunAsync(CancellationToken.None); }); // refused at once, before any work
        Assert.Contains("is running", refused.Message, StringComparison.Ordinal);
        release.Set();
        RedriveSummary first = await running.WaitAsync(Deadline);

        Assert.False(first.Completed);
        Assert.Equal(RedrivePlanState.Stopped, plan.State);
        RedriveSummary resumed = await plan.RunAsync(CancellationToken.None).WaitAsync(Deadline);
        Assert.True(resumed.Completed, resumed.ToString());
        Assert.Equal(RedrivePlanState.Completed, plan.State);
        Assert.Equal(3, plan.Written);
        Assert.Equal(["k0", "k2", "k4"], ReadAll(Topic, 3).Select(Key).Order());
    }

    [Fact]
    public async Task ARecordWhoseOwnHeadersNameAnotherSource_IsRedrivenToItsRealSource_ByARunAndByAPlan()
    {
        _cluster.CreateTopic(ForgedSourceRecord.ForgedTopic, 1);
        ForgedSourceRecord.WriteAndDeadLetter(_cluster.BootstrapServers, Topic, DeadLetterTopic);
        string[] topics = [Topic, DeadLetterTopic, ForgedSourceRecord.ForgedTopic];
        var before = ForgedSourceRecord.Counts(_cluster.BootstrapServers, topics);
        Assert.Equal((1L, 1L, 0L), (before[Topic], before[DeadLetterTopic], before[ForgedSourceRecord.ForgedTopic]));

        RedrivePlan plan = await DeadLetterRedrive.PlanAsync(Kafka, new RedriveOptions { DeadLetterTopic = DeadLetterTopic, GroupId = "by-plan" }, CancellationToken.None).WaitAsync(Deadline);
        RedrivePlanEntry entry = Assert.Single(plan.DeadLetters);
        Assert.Equal((Topic, 0, 0L, "System.InvalidOperationException"), (entry.SourceTopic, entry.SourcePartition!.Value, entry.SourceOffset!.Value, entry.ErrorCode));
        Assert.Equal(1, (await plan.RunAsync(CancellationToken.None).WaitAsync(Deadline)).Written);
        Assert.Equal(1, DeadLetterRedrive.Run(Kafka, new RedriveOptions { DeadLetterTopic = DeadLetterTopic, GroupId = "by-run" }).Written);

        var after = ForgedSourceRecord.Counts(_cluster.BootstrapServers, topics);
        Assert.True(
            after[Topic] == 3 && after[DeadLetterTopic] == 1 && after[ForgedSourceRecord.ForgedTopic] == 0,
            "before: " + ForgedSourceRecord.Describe(before) + "; after: " + ForgedSourceRecord.Describe(after));

        // Written back as it was read: the producer's own headers, forged ones included, byte for byte, then the redrive's.
        ConsumeResult<byte[], byte[]> back = ReadAll(Topic, 3).Last(r => r.Offset.Value > 0);
        Assert.Equal(
            ForgedSourceRecord.Headers().Select(h => h.Key).Concat([RedriveHeaderNames.Count, RedriveHeaderNames.Time, RedriveHeaderNames.Run, DeadLetterHeaderNames.Block]),
            back.Message.Headers.Select(h => h.Key));
    }
}
