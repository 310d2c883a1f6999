using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tests.Support;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Vectors.Telemetry.V1;
using Xunit;

namespace KafkaProtobuf.Tests.Hosting;

/// <summary>
/// What stops the consumer for good where no record's own step returns it, reported once with its reason, and the
/// application stopped: a fatal error librdkafka meets in the background (a static member fenced by a newer instance of
/// itself), in every loop, while the loop waits in a consume with no record ever to come (batches across partitions
/// wait without a timeout while no batch is open); and a handler failure whose policy is to stop, concluded while its
/// partition is being revoked, inside librdkafka's rebalance callback.
/// </summary>
public sealed class HostedConsumerStopsForGoodTests() : HostedConsumerTestBase("stops")
{
    [Theory]
    [InlineData("sequential")]
    [InlineData("partition-parallel")]
    [InlineData("batches")]
    [InlineData("batches-across-partitions")]
    public async Task AFencedStaticMember_IsAFatalError_ThatStopsTheConsumerAndTheApplication_WithTheErrorAsTheReason(string mode)
    {
        string topic = "fatal-" + mode;
        ProduceAcrossPartitions(topic, 1, 2);
        var handled = new ConcurrentQueue<long>();
        using IHost host = StartHost("devices", topic, builder =>
        {
            if (mode.StartsWith("batches", StringComparison.Ordinal))
            {
                builder.HandleBatch((batch, _) =>
                {
                    foreach (ConsumeResult<string, Device> record in batch)
                    {
                        handled.Enqueue(record.Offset.Value);
                    }

                    return Task.CompletedTask;
                });
            }
            else
            {
                builder.Handle((record, _) =>
                {
                    handled.Enqueue(record.Offset.Value);
                    return Task.CompletedTask;
                });
            }
        }, options =>
        {
            options.Consumer.GroupInstanceId = "the-only-instance"; // static membership: a fenced member is a fatal error
            options.MaxConcurrentHandlers = mode == "partition-parallel" ? 4 : 1;
            options.Batches.AcrossPartitions = mode == "batches-across-partitions";
            options.Batches.MaxWait = TimeSpan.FromMilliseconds(50);
        }, services => services.AddHealthChecks().AddKafkaProtobufConsumers());
        var lifetime = host.Services.GetRequiredService<IHostApplicationLifetime>();
        Wait.Until(() => handled.Count == 2, "both records handled: the member is in its group, heartbeating", Deadline);

        // Every heartbeat from now on is answered as to a member a newer instance of itself has replaced.
        Cluster.FailNextRequests(KafkaApi.Heartbeat, ErrorCode.FencedInstanceId, 1000);

        Wait.Until(() => lifetime.ApplicationStopping.IsCancellationRequested, "the application to be asked to stop", Deadline);
        HealthReport health = await host.Services.GetRequiredService<HealthCheckService>().CheckHealthAsync();
        await host.StopAsync().WaitAsync(Deadline);

        Assert.Equal("Failed", health.Entries["kafkaprotobuf-consumers"].Data["devices"]);
        string reason = health.Entries["kafkaprotobuf-consumers"].Description ?? string.Empty;
        Assert.Contains("Fatal consumer error", reason, StringComparison.Ordinal); // librdkafka's words
        Assert.Contains("fenced", reason, StringComparison.Ordinal);
        Assert.Equal([0, 1], handled);
    }

    [Fact]
    public async Task AHandlerFailureConcludedWhileItsPartitionIsRevoked_StopsTheConsumer_AndTheRecordIsHandledByTheNextOwner()
    {
        ProduceAcrossPartitions("revoking", 2, 3);
        var revoking = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var lines = new ConcurrentQueue<string>();
        var log = new CapturedLog((_, _, line) =>
        {
            lines.Enqueue(line);
            if (line.Contains("partitions revoked", StringComparison.Ordinal))
            {
                revoking.TrySetResult();
            }
        });
        using var held = new ManualResetEventSlim();
        var handledBySecond = new ConcurrentQueue<(int Partition, long Offset)>();
        void Options(KafkaProtobufConsumerOptions options)
        {
            options.MaxConcurrentHandlers = 4;
            options.RevokeTimeout = TimeSpan.FromSeconds(30); // the revocation waits for the held handler
            options.HandlerFailures.MaxAttempts = 1;
            options.HandlerFailures.WhenAttemptsRunOut = HandlerFailureAction.StopConsumer;
        }

        using IHost first = StartHost("first", "revoking", async (record, token) =>
        {
            if (record.Partition.Value == 0 && record.Offset.Value == 0)
            {
                // Held until the rebalance revokes the partition: its failure is concluded inside the revocation.
                held.Set();
                await revoking.Task.WaitAsync(Deadline, token);
                throw new InvalidOperationException("the ledger is closed");
            }
        }, Options, services => services.AddSingleton<ILoggerProvider>(log).AddHealthChecks().AddKafkaProtobufConsumers());
        var lifetime = first.Services.GetRequiredService<IHostApplicationLifetime>();
        Assert.True(held.Wait(Deadline), "the first member never took partition 0's first record");

        using IHost second = StartHost("second", "revoking", (record, _) =>
        {
            handledBySecond.Enqueue((record.Partition.Value, record.Offset.Value));
            return Task.CompletedTask;
        }, Options);

        Wait.Until(() => lifetime.ApplicationStopping.IsCancellationRequested, "the first member's application to be asked to stop", Deadline);
        HealthReport health = await first.Services.GetRequiredService<HealthCheckService>().CheckHealthAsync();
        await first.StopAsync().WaitAsync(Deadline);
        Wait.Until(() => handledBySecond.Contains((0, 0)), "the second member to handle the record the first one stopped on", Deadline);
        await second.StopAsync().WaitAsync(Deadline);

        Assert.Equal("Failed", health.Entries["kafkaprotobuf-consumers"].Data["first"]);
        Assert.Contains("the ledger is closed", health.Entries["kafkaprotobuf-consumers"].Description ?? string.Empty, StringComparison.Ordinal);
        List<string> written = lines.ToList();
        int revokedAt = written.FindIndex(l => l.Contains("partitions revoked", StringComparison.Ordinal));
        int failedAt = written.FindIndex(l => l.Contains("stopped on a failure", StringComparison.Ordinal));
        Assert.True(revokedAt >= 0 && failedAt > revokedAt, "the failure was not met inside the revocation:\n" + string.Join("\n", written));
        Assert.Single(written, l => l.Contains("stopped on a failure", StringComparison.Ordinal)); // reported once
    }
}
