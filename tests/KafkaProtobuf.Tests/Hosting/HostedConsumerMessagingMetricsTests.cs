using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics.Metrics;
using System.Linq;
using System.Threading.Tasks;
using KafkaProtobuf.Diagnostics;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.Tests.Support;
using Microsoft.Extensions.Hosting;
using Xunit;

namespace KafkaProtobuf.Tests.Hosting;

/// <summary>
/// OpenTelemetry's messaging metrics from the hosted consumer: <c>messaging.process.duration</c> and
/// <c>messaging.client.consumed.messages</c> with the conventions' attributes (system, operation, group, topic,
/// partition, error.type on a failure), and none with the option off.
/// </summary>
public sealed class HostedConsumerMessagingMetricsTests() : HostedConsumerTestBase("messaging")
{
    [Fact]
    public async Task EachHandlerRun_IsMeasured_WithTheConventionsAttributes()
    {
        ProduceAcrossPartitions("orders", 2, 3);
        Cluster.CreateTopic("orders.dlq", 1);
        using var measured = new Measurements(this);
        var done = new ConcurrentQueue<long>();
        IHost host = StartHost("metered", "orders", (record, _) =>
        {
            if (record.Partition.Value == 1 && record.Offset.Value == 2)
            {
                throw new TimeoutException("slow");
            }

            done.Enqueue(record.Offset.Value);
            return Task.CompletedTask;
        }, options =>
        {
            options.HandlerFailures.MaxAttempts = 1;
            options.DeadLetterTopic = "orders.dlq";
        });

        Wait.Until(() => done.Count == 5 && measured.Durations.Count >= 6, () => "5 records handled and 6 runs measured (" + measured.Durations.Count + ")", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        Assert.All(measured.Durations, m =>
        {
            Assert.Equal("kafka", m["messaging.system"]);
            Assert.Equal("process", m["messaging.operation.name"]);
            Assert.Equal(Group, m["messaging.consumer.group.name"]);
            Assert.Equal("orders", m["messaging.destination.name"]);
        });
        Assert.Equal(["0", "0", "0", "1", "1", "1"], measured.Durations.Select(m => (string)m["messaging.destination.partition.id"]!).Order());
        IDictionary<string, object?> failed = Assert.Single(measured.Durations, m => m.ContainsKey("error.type"));
        Assert.Equal("System.TimeoutException", failed["error.type"]);
        Assert.Equal("1", failed["messaging.destination.partition.id"]);
        Assert.Equal(5, measured.Consumed.Sum(c => c.Count));
    }

    [Fact]
    public async Task TheOptionOff_MeasuresNone()
    {
        ProduceAcrossPartitions("quiet", 1, 3);
        using var measured = new Measurements(this);
        var done = new ConcurrentQueue<long>();
        IHost host = StartHost("unmetered", "quiet", (record, _) =>
        {
            done.Enqueue(record.Offset.Value);
            return Task.CompletedTask;
        }, options => options.MessagingConventionMetrics = false);

        Wait.Until(() => done.Count == 3, "3 records handled", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        Assert.Empty(measured.Durations); // (only this group's are kept)
        Assert.Empty(measured.Consumed);
    }

    /// <summary>What the messaging instruments recorded for this test's group.</summary>
    private sealed class Measurements : IDisposable
    {
        private readonly MeterListener _listener = new();

        public Measurements(HostedConsumerMessagingMetricsTests test)
        {
            _listener.InstrumentPublished = (instrument, listener) =>
            {
                if (instrument.Meter.Name == KafkaProtobufMetrics.MeterName && instrument.Name.StartsWith("messaging.", StringComparison.Ordinal))
                {
                    listener.EnableMeasurementEvents(instrument);
                }
            };
            _listener.SetMeasurementEventCallback<double>((instrument, _, tags, _) =>
            {
                var byName = Tags(tags);
                if (Equals(byName.GetValueOrDefault("messaging.consumer.group.name"), test.Group) && instrument.Name == "messaging.process.duration")
                {
                    Durations.Add(byName);
                }
            });
            _listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) =>
            {
                var byName = Tags(tags);
                if (Equals(byName.GetValueOrDefault("messaging.consumer.group.name"), test.Group) && instrument.Name == "messaging.client.consumed.messages")
                {
                    Consumed.Add((value, byName));
                }
            });
            _listener.Start();
        }

        public ConcurrentBag<IDictionary<string, object?>> Durations { get; } = [];

        public ConcurrentBag<(long Count, IDictionary<string, object?> Tags)> Consumed { get; } = [];

        public void Dispose() => _listener.Dispose();

        private static Dictionary<string, object?> Tags(ReadOnlySpan<KeyValuePair<string, object?>> tags)
        {
            var byName = new Dictionary<string, object?>();
            foreach (KeyValuePair<string, object?> tag in tags)
            {
                byName[tag.Key] = tag.Value;
            }

            return byName;
        }
    }
}
