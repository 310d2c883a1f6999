using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics.Metrics;
using System.Linq;
using System.Threading.Tasks;
using KafkaProtobuf.Diagnostics;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.Tests.Support;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Hosting;
using Xunit;

namespace KafkaProtobuf.Tests.Hosting;

/// <summary>
/// The hosted consumer's lag: the gauge <c>kafkaprotobuf.consumer.lag</c> per partition rises while a handler is held
/// and falls to 0 once it is let go, and the health check goes degraded and unhealthy past the thresholds, then healthy
/// again. Waits on events, not on time (the lag is measured at most once a second; the test polls until it is seen).
/// </summary>
public sealed class HostedConsumerLagTests() : HostedConsumerTestBase("lag")
{
    [Theory]
    [InlineData(HandlingOrder.Partition, 1)]
    [InlineData(HandlingOrder.Partition, 4)]
    [InlineData(HandlingOrder.Key, 4)]
    public async Task LagRisesWhileAHandlerIsHeld_AndFallsAfter_AndHealthFollowsTheThresholds(HandlingOrder order, int handlers)
    {
        ProduceAcrossPartitions("orders", 2, 30);
        var release = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        using var gauge = new LagListener();
        gauge.Start();
        IHost host = StartHost("lagging", "orders", async (record, cancellationToken) =>
        {
            if (record.Partition.Value == 0)
            {
                await release.Task.WaitAsync(cancellationToken); // partition 0 waits; partition 1 flows (in partition order)
            }
        }, options =>
        {
            options.HandlingOrder = order;
            options.MaxConcurrentHandlers = handlers;
            options.LagDegradedThreshold = 5;
            options.LagUnhealthyThreshold = 20;
        }, services => services.AddHealthChecks().AddKafkaProtobufConsumers());
        HealthCheckService health = host.Services.GetRequiredService<HealthCheckService>();

        // Partition 0: all 30 records not handled (the first is in its handler) — past both thresholds.
        HealthReport held = await PollHealth(health, HealthStatus.Unhealthy, () => gauge.Latest("orders", 0) == 30);
        Assert.Contains("lagging lags more than 20 records on orders [0]: 30", held.Entries["kafkaprotobuf-consumers"].Description, StringComparison.Ordinal);
        if (handlers > 1 && order == HandlingOrder.Partition)
        {
            Wait.Until(() => gauge.Latest("orders", 1) == 0, "partition 1 handled while 0 waits", Deadline, gauge.Collect);
        }

        release.SetResult();
        await PollHealth(health, HealthStatus.Healthy, () => gauge.Latest("orders", 0) == 0 && gauge.Latest("orders", 1) == 0);
        await host.StopAsync().WaitAsync(Deadline);
    }

    [Fact]
    public async Task ARecordSentToARetryTopic_IsNoLongerLag_ItsOffsetIsStored()
    {
        // Its copy waits an hour in the retry topic; on its own topic the record is done with, and the gauge says so at
        // once (it stayed at 1 until another record of the partition was stored).
        ProduceAcrossPartitions("retried", 1, 1);
        Cluster.CreateTopic("retried.retry.1", 1);
        using var gauge = new LagListener("retrying");
        gauge.Start();
        IHost host = StartHost("retrying", "retried", (_, _) => Task.FromException(new TimeoutException("the ledger did not answer")), options =>
        {
            options.HandlerFailures.MaxAttempts = 1;
            options.RetryTopics.Delays.Add(TimeSpan.FromHours(1));
        });

        Wait.Until(() => gauge.Latest("retried.retry.1", 0) == 1, "the copy to wait in the retry topic", Deadline, gauge.Collect);
        Wait.Until(() => gauge.Latest("retried", 0) == 0, () => $"the lag of retried [0] to fall to 0 (it is {gauge.Latest("retried", 0)})", Deadline, gauge.Collect);
        await host.StopAsync().WaitAsync(Deadline);

        Assert.Equal([1L], Committed("retried", 1));
    }

    [Fact]
    public void Thresholds_ComeFromConfiguration_AndAnUnhealthyBelowDegradedIsRefused()
    {
        var options = new KafkaProtobufConsumerOptions();
        IConfiguration section = new ConfigurationBuilder()
            .AddInMemoryCollection(new Dictionary<string, string?> { ["LagDegradedThreshold"] = "500", ["LagUnhealthyThreshold"] = "400" })
            .Build();

        ConsumerConfiguration.Apply(section, options);

        Assert.Equal(500, options.LagDegradedThreshold);
        Assert.Equal(400, options.LagUnhealthyThreshold);
        options.Topics.Add("orders");
        options.Consumer.BootstrapServers = "localhost:9092";
        options.Consumer.GroupId = "g";
        InvalidOperationException refused = Assert.Throws<InvalidOperationException>(() => options.Validate("lagging"));
        Assert.Contains("LagUnhealthyThreshold (400) is not above LagDegradedThreshold (500)", refused.Message, StringComparison.Ordinal);
    }

    /// <summary>Collects the lag gauge's measurements (observable: taken when collected).</summary>
    private sealed class LagListener(string consumer = "lagging") : IDisposable
    {
        private readonly MeterListener _listener = new();
        private readonly ConcurrentDictionary<(string Topic, int Partition), long> _latest = new();

        public void Start()
        {
            _listener.InstrumentPublished = (instrument, listener) =>
            {
                if (instrument.Meter.Name == KafkaProtobufMetrics.MeterName && instrument.Name == KafkaProtobufConsumerMetrics.Lag)
                {
                    listener.EnableMeasurementEvents(instrument);
                }
            };
            _listener.SetMeasurementEventCallback<long>((_, value, tags, _) =>
            {
                var byName = new Dictionary<string, object?>();
                foreach (KeyValuePair<string, object?> tag in tags)
                {
                    byName[tag.Key] = tag.Value;
                }

                if (Equals(byName[KafkaProtobufConsumerMetrics.ConsumerTag], consumer))
                {
                    _latest[((string)byName[KafkaProtobufConsumerMetrics.TopicTag]!, (int)byName[KafkaProtobufConsumerMetrics.PartitionTag]!)] = value;
                }
            });
            _listener.Start();
        }

        public void Collect()
        {
            _listener.RecordObservableInstruments();
            System.Threading.Thread.Sleep(10);
        }

        public long? Latest(string topic, int partition)
        {
            _listener.RecordObservableInstruments();
            return _latest.TryGetValue((topic, partition), out long value) ? value : null;
        }

        public void Dispose() => _listener.Dispose();
    }
}
