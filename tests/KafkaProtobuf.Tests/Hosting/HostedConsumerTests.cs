using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics.Metrics;
using System.Linq;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
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
/// The hosted consumer on the embedded cluster, in a generic host: the offset rule (a new member re-reads nothing that
/// was handled, nothing past a record that was not), handler failures retried then dead-lettered or stopping, a poison
/// record and a failing handler in one partition, a slow handler cancelled at shutdown, the health check's states, and
/// the consumer's metrics.
/// Every wait has a deadline; nothing asserts on time.
/// </summary>
public sealed class HostedConsumerTests() : HostedConsumerTestBase("hosted")
{
    /// <summary>Good Device values numbered 0..count-1 on one partition, with poison values at the given sequence numbers.</summary>
    private void Produce(string topic, int count, params int[] poison)
    {
        Cluster.CreateTopic(topic, 1);
        using IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(Cluster.CreateProducerConfig()).Build();
        for (int i = 0; i < count; i++)
        {
            byte[] value = poison.Contains(i) ? Encoding.UTF8.GetBytes("{\"not\":\"framed\"}") : GoodValue(i);
            producer.Produce(new TopicPartition(topic, 0), new Message<byte[], byte[]> { Key = Encoding.UTF8.GetBytes("k" + i), Value = value, Headers = [new Header("trace", [(byte)i])] });
        }

        Assert.Equal(0, producer.Flush(Deadline));
    }

    private IHost Start(string topic, Func<ConsumeResult<string, Device>, CancellationToken, Task> handler, Action<KafkaProtobufConsumerOptions>? configure = null, TimeSpan? shutdownTimeout = null) =>
        StartHost("devices", topic, handler, configure, services =>
        {
            services.Configure<HostOptions>(o => o.ShutdownTimeout = shutdownTimeout ?? TimeSpan.FromSeconds(30));
            services.AddHealthChecks().AddKafkaProtobufConsumers();
        });

    /// <summary>What the group has committed on partition 0 of <paramref name="topic"/> (the next offset to read).</summary>
    private long Committed(string topic) => Committed(topic, 1)[0];

    private static Task<HealthReport> Health(IHost host) => host.Services.GetRequiredService<HealthCheckService>().CheckHealthAsync();

    [Fact]
    public async Task Shutdown_CommitsEveryHandledRecord_SoANewMemberRereadsNothing()
    {
        Produce("orders", 30);
        var handled = new ConcurrentQueue<long>();
        IHost host = Start("orders", (record, _) =>
        {
            handled.Enqueue(record.Offset.Value);
            return Task.CompletedTask;
        });

        Wait.Until(() => handled.Count == 30, "30 records handled", Deadline);
        Assert.Equal(HealthStatus.Healthy, (await Health(host)).Status);
        await host.StopAsync().WaitAsync(Deadline);

        Assert.Equal(Enumerable.Range(0, 30).Select(i => (long)i), handled);
        Assert.Equal(30, Committed("orders"));
        HealthReport stopped = await Health(host);
        Assert.Equal(HealthStatus.Unhealthy, stopped.Status);
        Assert.Equal("Stopped", stopped.Entries["kafkaprotobuf-consumers"].Data["devices"]);
    }

    [Fact]
    public async Task AFailingHandler_IsRetriedThenDeadLetteredByteForByte_WithTheExceptionInHeaders_AndTheRestIsHandled()
    {
        Produce("payments", 10);
        Cluster.CreateTopic("payments.dlq", 1);
        var attempts = new ConcurrentDictionary<long, int>();
        var handled = new ConcurrentQueue<long>();
        IHost host = Start("payments", (record, _) =>
        {
            int attempt = attempts.AddOrUpdate(record.Offset.Value, 1, (_, n) => n + 1);
            if (record.Offset.Value == 4)
            {
                throw new TimeoutException("the payment service did not answer (attempt " + attempt + ")");
            }

            handled.Enqueue(record.Offset.Value);
            return Task.CompletedTask;
        }, options => options.HandlerFailures.MaxAttempts = 3);

        Wait.Until(() => handled.Count == 9, "the nine other records handled", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        Assert.Equal(3, attempts[4]);
        Assert.Equal([0, 1, 2, 3, 5, 6, 7, 8, 9], handled);
        Assert.Equal(10, Committed("payments"));
        ConsumeResult<byte[], byte[]> letter = Assert.Single(ReadDeadLetters(Cluster.CreateConsumerConfig(), "payments.dlq", Deadline));
        Assert.Equal(Encoding.UTF8.GetBytes("k4"), letter.Message.Key);
        Assert.Equal(GoodValue(4), letter.Message.Value);
        Assert.Equal([4], letter.Message.Headers.GetLastBytes("trace"));
        Assert.Equal("System.TimeoutException", Header(letter, DeadLetterHeaderNames.ErrorCode));
        Assert.Equal("the payment service did not answer (attempt 3)", Header(letter, DeadLetterHeaderNames.ErrorMessage));
        Assert.Equal("handler", Header(letter, DeadLetterHeaderNames.Component));
        Assert.Equal(new TopicPartitionOffset("payments", 0, 4), SourceOf(letter.Message.Headers));
    }

    [Fact]
    public async Task APoisonRecordAndAFailingHandler_InOnePartition_AreBothDeadLettered_InOrder()
    {
        Produce("mixed", 8, poison: 2);
        Cluster.CreateTopic("mixed.dlq", 1);
        var handled = new ConcurrentQueue<long>();
        IHost host = Start("mixed", (record, _) =>
        {
            if (record.Offset.Value == 5)
            {
                throw new InvalidOperationException("no such customer");
            }

            handled.Enqueue(record.Offset.Value);
            return Task.CompletedTask;
        }, options => options.HandlerFailures.Classify = e => e is InvalidOperationException ? HandlerFailureAction.DeadLetter : null);

        Wait.Until(() => handled.Count == 6, "the six good records handled", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        Assert.Equal([0, 1, 3, 4, 6, 7], handled);
        Assert.Equal(8, Committed("mixed"));
        List<ConsumeResult<byte[], byte[]>> letters = ReadDeadLetters(Cluster.CreateConsumerConfig(), "mixed.dlq", Deadline);
        Assert.Equal([2L, 5L], letters.Select(l => SourceOf(l.Message.Headers).Offset.Value));
        Assert.Equal(["value", "handler"], letters.Select(l => Header(l, DeadLetterHeaderNames.Component)));
        Assert.Equal(nameof(FrameErrorCode.UnknownMagicByte), Header(letters[0], DeadLetterHeaderNames.ErrorCode));
        Assert.Equal("System.InvalidOperationException", Header(letters[1], DeadLetterHeaderNames.ErrorCode));
    }

    [Fact]
    public async Task AHandlerFailureWhosePolicyIsToStop_StopsTheConsumerAndTheApplication_WithoutCommittingPastTheRecord()
    {
        Produce("ledger", 6);
        var handled = new ConcurrentQueue<long>();
        IHost host = Start("ledger", (record, _) =>
        {
            if (record.Offset.Value == 3)
            {
                throw new InvalidOperationException("the ledger is closed");
            }

            handled.Enqueue(record.Offset.Value);
            return Task.CompletedTask;
        }, options =>
        {
            options.HandlerFailures.MaxAttempts = 2;
            options.HandlerFailures.WhenAttemptsRunOut = HandlerFailureAction.StopConsumer;
        });
        var lifetime = host.Services.GetRequiredService<IHostApplicationLifetime>();

        Wait.Until(() => lifetime.ApplicationStopping.IsCancellationRequested, "the application to be asked to stop", Deadline);
        HealthReport health = await Health(host);
        await host.StopAsync().WaitAsync(Deadline);

        Assert.Equal([0, 1, 2], handled);
        Assert.Equal(3, Committed("ledger")); // the failed record is read again on restart
        Assert.Equal(HealthStatus.Unhealthy, health.Status);
        Assert.Equal("Failed", health.Entries["kafkaprotobuf-consumers"].Data["devices"]);
        Assert.Contains("the ledger is closed", health.Entries["kafkaprotobuf-consumers"].Description ?? string.Empty, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ASlowHandler_IsCancelledWhenTheShutdownTimeoutRunsOut_AndItsRecordIsNotCommitted()
    {
        Produce("slow", 5);
        var handled = new ConcurrentQueue<long>();
        var stuck = new ManualResetEventSlim();
        bool cancelled = false;
        IHost host = Start("slow", async (record, token) =>
        {
            if (record.Offset.Value == 2)
            {
                stuck.Set();
                try
                {
                    await Task.Delay(Timeout.Infinite, token);
                }
                catch (OperationCanceledException)
                {
                    cancelled = true;
                    throw;
                }
            }

            handled.Enqueue(record.Offset.Value);
        }, shutdownTimeout: TimeSpan.FromMilliseconds(500));

        Assert.True(stuck.Wait(Deadline), "the handler to reach the slow record");
        await host.StopAsync().WaitAsync(Deadline);

        Assert.True(cancelled);
        Assert.Equal([0, 1], handled);
        Assert.Equal(2, Committed("slow"));
    }

    [Fact]
    public async Task LogLines_WriteEveryPartitionAndRecordOneWay()
    {
        Produce("positions", 3, 1); // record 1 is poison
        Cluster.CreateTopic("positions.dlq", 1);
        var log = new CapturedLog();
        var handled = new ConcurrentQueue<long>();
        IHost host = StartHost("devices", "positions", (record, _) =>
        {
            handled.Enqueue(record.Offset.Value);
            return Task.CompletedTask;
        }, services: services => services.AddSingleton<ILoggerProvider>(log));

        Wait.Until(() => handled.Count == 2, "both good records handled", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        IReadOnlyList<string> lines = log.Lines;
        Assert.Contains(lines, l => l.EndsWith("partitions assigned: positions [0]", StringComparison.Ordinal));
        Assert.Contains(lines, l => l.EndsWith("partitions revoked: positions [0]", StringComparison.Ordinal)); // no "@Unset [-1001]"
        Assert.Contains(lines, l => l.Contains("positions [0] @1 dead-lettered to positions.dlq", StringComparison.Ordinal));
        Assert.DoesNotContain(lines, l => l.Contains("[[", StringComparison.Ordinal) || l.Contains("Unset", StringComparison.Ordinal));
    }

    [Fact]
    public async Task HandlerRetries_WaitTheBackoffOfTheirAttempt_BetweenHalfAndAllOfItsCeiling()
    {
        Produce("retried", 1);
        var log = new CapturedLog();
        int attempts = 0;
        IHost host = StartHost("devices", "retried", (_, _) =>
            Interlocked.Increment(ref attempts) <= 3 ? throw new TimeoutException("not yet") : Task.CompletedTask,
            options =>
            {
                options.HandlerFailures.RetryBackoff = TimeSpan.FromMilliseconds(10);
                options.HandlerFailures.MaxRetryBackoff = TimeSpan.FromMilliseconds(30);
            },
            services => services.AddSingleton<ILoggerProvider>(log));

        Wait.Until(() => Volatile.Read(ref attempts) >= 4, "the record handled on its fourth attempt", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        Assert.Equal(1, Committed("retried"));
        string[] retries = log.Lines.Where(l => l.Contains("retrying in", StringComparison.Ordinal)).ToArray();
        Assert.Equal(3, retries.Length);
        double[] ceilingsMs = [10, 20, 30]; // doubling from 10 ms, capped at 30
        for (int i = 0; i < retries.Length; i++)
        {
            Assert.Contains("(attempt " + (i + 1) + " of 5); retrying in ", retries[i], StringComparison.Ordinal);
            double delayMs = TimeSpan.Parse(retries[i][(retries[i].LastIndexOf(' ') + 1)..], System.Globalization.CultureInfo.InvariantCulture).TotalMilliseconds;
            Assert.InRange(delayMs, ceilingsMs[i] / 2, ceilingsMs[i]); // the jitter keeps half to all of the ceiling
        }
    }

    [Fact]
    public async Task Health_IsDegradedWhileTheHandlerKeepsFailingOnARecord_AndHealthyOnceItIsThrough()
    {
        Produce("flaky", 3);
        var release = new ManualResetEventSlim();
        var handled = new ConcurrentQueue<long>();
        int failures = 0;
        IHost host = Start("flaky", (record, _) =>
        {
            if (record.Offset.Value == 1 && !release.IsSet)
            {
                Interlocked.Increment(ref failures);
                throw new TimeoutException("not yet");
            }

            handled.Enqueue(record.Offset.Value);
            return Task.CompletedTask;
        }, options => options.HandlerFailures.MaxAttempts = int.MaxValue);

        Wait.Until(() => Volatile.Read(ref failures) >= 2, "the handler to fail twice", Deadline);
        HealthReport degraded = await Health(host);
        release.Set();
        Wait.Until(() => handled.Count == 3, "every record handled", Deadline);
        HealthReport healthy = await Health(host);
        await host.StopAsync().WaitAsync(Deadline);

        Assert.Equal(HealthStatus.Degraded, degraded.Status);
        Assert.Contains("handler has failed", degraded.Entries["kafkaprotobuf-consumers"].Description ?? string.Empty, StringComparison.Ordinal);
        Assert.Equal(HealthStatus.Healthy, healthy.Status);
    }

    [Fact]
    public async Task Metrics_CountHandledRecords_EachHandlerRunsDuration_RetriesAndDeadLettersByReason()
    {
        Produce("metered", 10, 2); // record 2 is poison
        Cluster.CreateTopic("metered.dlq", 1);
        var measurements = new ConcurrentQueue<(string Instrument, double Value, string? Reason)>();
        using var listener = new MeterListener
        {
            InstrumentPublished = (instrument, l) =>
            {
                if (instrument.Meter.Name == KafkaProtobuf.Diagnostics.KafkaProtobufMetrics.MeterName && instrument.Name.StartsWith("kafkaprotobuf.consumer.", StringComparison.Ordinal))
                {
                    l.EnableMeasurementEvents(instrument);
                }
            },
        };
        listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) => Add(instrument, value, tags));
        listener.SetMeasurementEventCallback<double>((instrument, value, tags, _) => Add(instrument, value, tags));
        listener.Start(); // before the host: the handler's duration is timed only while someone listens

        int failuresOf4 = 0;
        IHost host = StartHost("metered", "metered", (record, _) =>
        {
            if (record.Offset.Value == 7 || (record.Offset.Value == 4 && Interlocked.Increment(ref failuresOf4) <= 2))
            {
                throw new TimeoutException("not now");
            }

            return Task.CompletedTask;
        }, options => options.HandlerFailures.MaxAttempts = 3);

        Wait.Until(() => Sum(KafkaProtobufConsumerMetrics.RecordsHandled) == 8 && Sum(KafkaProtobufConsumerMetrics.RecordsDeadLettered) == 2, "8 records handled and 2 dead-lettered", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        // Handled: all but the poison record (2) and the one whose handler always fails (7).
        Assert.Equal(8, Sum(KafkaProtobufConsumerMetrics.RecordsHandled));

        // A duration for every run: 8 that completed, 2 failures of record 4, 3 of record 7.
        double[] durations = [.. Of(KafkaProtobufConsumerMetrics.HandlerDuration)];
        Assert.Equal(13, durations.Length);
        Assert.All(durations, d => Assert.True(d >= 0 && double.IsFinite(d), $"a duration of {d} s"));

        // Retried: record 4 twice (then it completed), record 7 twice (its third failure ran out of attempts).
        Assert.Equal(4, Sum(KafkaProtobufConsumerMetrics.HandlerRetries));
        Assert.Equal(["deserialization", "handler"], measurements.Where(m => m.Instrument == KafkaProtobufConsumerMetrics.RecordsDeadLettered).Select(m => m.Reason).Order());

        void Add(Instrument instrument, double value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
        {
            string? consumer = null;
            string? reason = null;
            foreach (KeyValuePair<string, object?> tag in tags)
            {
                consumer = tag.Key == KafkaProtobufConsumerMetrics.ConsumerTag ? tag.Value as string : consumer;
                reason = tag.Key == KafkaProtobufConsumerMetrics.ReasonTag ? tag.Value as string : reason;
            }

            if (consumer == "metered")
            {
                measurements.Enqueue((instrument.Name, value, reason));
            }
        }

        IEnumerable<double> Of(string instrument) => measurements.Where(m => m.Instrument == instrument).Select(m => m.Value);

        double Sum(string instrument) => Of(instrument).Sum();
    }

    private static string Header(ConsumeResult<byte[], byte[]> letter, string name) => Encoding.UTF8.GetString(letter.Message.Headers.GetLastBytes(name));
}
