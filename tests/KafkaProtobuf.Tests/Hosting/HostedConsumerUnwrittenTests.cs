using System;
using System.Collections.Concurrent;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Diagnostics;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.Tests.Support;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Vectors.Telemetry.V1;
using Xunit;
using static KafkaProtobuf.Tests.EndToEnd.DeviceRecords;

namespace KafkaProtobuf.Tests.Hosting;

/// <summary>
/// A dead letter the broker does not take (its topic does not exist, and the broker does not create topics) is written
/// again, never handled again: the failed record's handler runs its attempts once, however many times the write is
/// tried; health names the topic that is missing and the partition that waits; once the topic exists, the dead letter is
/// written and the partition goes on. In each mode: sequential, partition-parallel, batches.
/// </summary>
public sealed class HostedConsumerUnwrittenTests() : HostedConsumerTestBase("unwritten")
{
    [Theory]
    [InlineData("sequential")]
    [InlineData("partition-parallel")]
    [InlineData("batches")]
    public async Task ADeadLetterWhoseTopicIsMissing_IsWrittenAgain_NeverHandledAgain_AndHealthNamesTheTopic(string mode)
    {
        string topic = "unwritten-" + mode;
        ProduceAcrossPartitions(topic, 1, 4); // no dead-letter topic yet
        var calls = new ConcurrentQueue<long>();
        using var probe = new WriteProbe("devices", Group);
        Task Handle(long offset)
        {
            calls.Enqueue(offset);
            return offset == 1 ? throw new TimeoutException("the ledger did not answer") : Task.CompletedTask;
        }

        using IHost host = StartHost("devices", topic, builder =>
        {
            if (mode == "batches")
            {
                builder.HandleBatch(async (batch, _) =>
                {
                    foreach (ConsumeResult<string, Device> record in batch)
                    {
                        await Handle(record.Offset.Value);
                    }
                });
            }
            else
            {
                builder.Handle((record, _) => Handle(record.Offset.Value));
            }
        }, options =>
        {
            options.MaxConcurrentHandlers = mode == "partition-parallel" ? 4 : 1;
            options.HandlerFailures.MaxAttempts = 2;
            options.Batches.MaxSize = 1; // each record a batch of its own: the split is not what this test is about
            options.Batches.MaxWait = TimeSpan.FromMilliseconds(50);
            options.CopyTimeout = TimeSpan.FromMilliseconds(500);
            options.CopyProducer!.AllowAutoCreateTopics = false; // a broker that does not create topics
        }, services =>
        {
            services.AddHealthChecks().AddKafkaProtobufConsumers();
        });
        var health = host.Services.GetRequiredService<HealthCheckService>();

        Wait.Until(() => probe.Count >= 3, "three writes of the dead letter to fail", Deadline);
        HealthReport waiting = await health.CheckHealthAsync();
        int handlerCallsMeanwhile = calls.Count(c => c == 1);
        Cluster.CreateTopic(topic + ".dlq", 1);
        Wait.Until(() => calls.Contains(3), "the records after it handled once the dead letter is written", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        Assert.Equal(2, handlerCallsMeanwhile); // its two attempts in place, then never again however often the write failed
        Assert.Equal(2, calls.Count(c => c == 1));
        Assert.Equal(HealthStatus.Degraded, waiting.Status);
        string description = waiting.Entries.Values.Single().Description ?? string.Empty;
        Assert.Contains("devices cannot write to '" + topic + ".dlq' for " + topic + " [0] (", description, StringComparison.Ordinal);
        Assert.Contains("TimedOut: the topic '" + topic + ".dlq' does not exist", description, StringComparison.Ordinal); // the consumer's wait or the producer's, whichever ends first
        Assert.Equal(1L, SourceOf(Assert.Single(ReadDeadLetters(Cluster.CreateConsumerConfig(), topic + ".dlq", Deadline)).Message.Headers).Offset.Value);
        Assert.Equal([0L, 1, 1, 2, 3], calls); // in order: 1's two attempts, then the records after it, each once
        Assert.Equal([4L], Committed(topic, 1));
    }

    [Fact]
    public async Task ADeadLetterTheBrokerDoesNotAcknowledge_IsWaitedForAtMostHalfThePollInterval_SoTheMemberStaysInItsGroup()
    {
        const string topic = "unacknowledged";
        ProduceAcrossPartitions(topic, 1, 4);
        Cluster.CreateTopic(topic + ".dlq", 1);
        Cluster.SetTopicError(topic + ".dlq", ErrorCode.LeaderNotAvailable); // its copies wait in the producer until they time out
        var calls = new ConcurrentQueue<long>();
        var log = new CapturedLog();
        using var probe = new WriteProbe("devices", Group);
        using IHost host = StartHost("devices", topic, (record, _) =>
        {
            calls.Enqueue(record.Offset.Value);
            return record.Offset.Value == 1 ? throw new TimeoutException("the ledger did not answer") : Task.CompletedTask;
        }, options =>
        {
            options.Consumer.MaxPollIntervalMs = 6_000; // librdkafka takes a member that has not polled for this long out of its group
            options.CopyTimeout = TimeSpan.FromSeconds(10); // longer: the wait for a copy is cut to 3 s
            options.HandlerFailures.MaxAttempts = 1;
        }, services => services.AddLogging(logging => logging.AddProvider(log)));

        Wait.Until(() => probe.Count >= 3, "three waits for the dead letter to end unacknowledged", Deadline);
        Cluster.SetTopicError(topic + ".dlq", ErrorCode.NoError);
        Wait.Until(() => calls.Contains(3), "the records after it handled once the dead letter is written", Deadline);
        int revokedWhileRunning = probe.Revocations; // stopping gives the partition back: not counted
        await host.StopAsync().WaitAsync(Deadline);

        Assert.Contains(log.Lines, l => l.Contains("CopyTimeout (00:00:10) is more than half of max.poll.interval.ms (00:00:06); a copy is waited for 00:00:03 at most", StringComparison.Ordinal));
        Assert.DoesNotContain(log.Lines, l => l.Contains("maximum poll interval", StringComparison.OrdinalIgnoreCase)); // librdkafka's MAXPOLL: the member left its group
        Assert.Equal(0, revokedWhileRunning); // its partition was never taken away while it waited
        Assert.Contains(ReadDeadLetters(Cluster.CreateConsumerConfig(), topic + ".dlq", Deadline), d => SourceOf(d.Message.Headers).Offset.Value == 1);
        Assert.Equal([0L, 1, 2, 3], calls); // handled once each, in order, however often the dead letter was written
    }

    [Fact]
    public async Task DeadLettersOfManyPartitionsToARefusingTopic_TryOneWriteAPoll_SoTheMemberStaysInItsGroup()
    {
        // Eight partitions' failures come back to the loop together; each write waits up to 3 s. Written one after the
        // other without a poll between them, they would keep the member from polling for 24 s, four times max.poll.interval.ms.
        const string topic = "refusing";
        const int partitions = 8;
        ProduceAcrossPartitions(topic, partitions, 4);
        Cluster.CreateTopic(topic + ".dlq", 1);
        Cluster.SetTopicError(topic + ".dlq", ErrorCode.LeaderNotAvailable);
        var calls = new ConcurrentQueue<(int Partition, long Offset)>();
        var log = new CapturedLog();
        using var probe = new WriteProbe("devices", Group);
        using IHost host = StartHost("devices", topic, (record, _) =>
        {
            calls.Enqueue((record.Partition.Value, record.Offset.Value));
            return record.Offset.Value == 1 ? throw new TimeoutException("the ledger did not answer") : Task.CompletedTask;
        }, options =>
        {
            options.MaxConcurrentHandlers = partitions;
            options.Consumer.MaxPollIntervalMs = 6_000;
            options.CopyTimeout = TimeSpan.FromSeconds(3);
            options.HandlerFailures.MaxAttempts = 1;
        }, services => services.AddLogging(logging => logging.AddProvider(log)));

        Wait.Until(() => probe.Count >= 2 * partitions, "every partition's dead letter refused twice", Deadline);
        Cluster.SetTopicError(topic + ".dlq", ErrorCode.NoError);
        Wait.Until(() => calls.Count(c => c.Offset == 3) == partitions, "every partition's records after it handled", Deadline);
        int revokedWhileRunning = probe.Revocations;
        await host.StopAsync().WaitAsync(Deadline);

        Assert.DoesNotContain(log.Lines, l => l.Contains("maximum poll interval", StringComparison.OrdinalIgnoreCase)); // librdkafka's MAXPOLL
        Assert.Equal(0, revokedWhileRunning);
        Assert.Equal(
            Enumerable.Range(0, partitions),
            ReadDeadLetters(Cluster.CreateConsumerConfig(), topic + ".dlq", Deadline)
                .Select(d => SourceOf(d.Message.Headers))
                .Where(source => source.Offset.Value == 1)
                .Select(source => source.Partition.Value)
                .Distinct()
                .Order());
        for (int partition = 0; partition < partitions; partition++)
        {
            Assert.Equal([0L, 1, 2, 3], calls.Where(c => c.Partition == partition).Select(c => c.Offset)); // once each, in order
        }
    }

    /// <summary>Counts the times the consumer was moved back to a record because its dead letter was not written, and the times partitions were taken away.</summary>
    private sealed class WriteProbe(string consumer, string group) : ConsumerEvents(consumer, group)
    {
        private int _count;
        private int _revocations;

        public int Count => Volatile.Read(ref _count);

        /// <summary>Times partitions were taken away (revoked or lost).</summary>
        public int Revocations => Volatile.Read(ref _revocations);

        public override void Revoked(System.Collections.Generic.IReadOnlyList<TopicPartition> partitions, bool lost) =>
            Interlocked.Increment(ref _revocations);

        public override void MovedBack(TopicPartitionOffset record, bool schemaUnavailable)
        {
            if (!schemaUnavailable)
            {
                Interlocked.Increment(ref _count);
            }
        }
    }
}
