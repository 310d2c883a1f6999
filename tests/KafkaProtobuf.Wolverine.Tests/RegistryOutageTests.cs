using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Redrive;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Wolverine.Tests.Support;
using Microsoft.Extensions.Hosting;
using Vectors.Telemetry.V1;
using Wolverine.Kafka;
using Xunit;

namespace KafkaProtobuf.Wolverine.Tests;

/// <summary>A schema registry that fails is an outage, not bad data: the listener waits, nothing is lost or dead-lettered.</summary>
[Collection(KafkaTests.Name)]
public sealed class RegistryOutageTests(KafkaFixture kafka)
{
    private const int FailedRequests = 12;

    [Fact]
    public async Task A_registry_outage_mid_stream_loses_nothing_dead_letters_nothing_and_keeps_the_order()
    {
        using InProcessSchemaRegistry registry = InProcessSchemaRegistry.Start();
        using var writer = new RegistryClient(registry.Url);
        using var reader = new RegistryClient(registry.Url);
        string topic = kafka.NewTopic("readings");
        string dead = kafka.NewTopic("dead");

        // Before the outage: the schema id in the prefix. After it: the schema's GUID in a header, an identifier the
        // listener has not looked up yet, so it must ask the registry while it fails.
        var prefix = new RegistryProtobufSerializer<Reading>(writer);
        List<Message<byte[], byte[]>> before = [.. Enumerable.Range(0, 5).Select(i => new Message<byte[], byte[]>
        {
            Value = prefix.Serialize(new Reading { SensorId = "before-" + i }, new SerializationContext(MessageComponentType.Value, topic))!,
        })];
        List<Message<byte[], byte[]>> after = [.. Enumerable.Range(0, 5).Select(i =>
        {
            (byte[] value, Headers headers) = DeadLetterTests.Write(writer, topic, new Reading { SensorId = "after-" + i });
            return new Message<byte[], byte[]> { Value = value, Headers = headers };
        })];
        var guids = new RegistryProtobufSerializer<Reading>(writer, new RegistrySerializerOptions { SchemaIdPlacement = SchemaIdPlacement.Header });
        SchemaIdentifier guid = await guids.WarmUpAsync(topic, MessageComponentType.Value);
        string guidPath = "/schemas/guids/" + guid.Guid!.Value.ToString("D");
        WolverineApp.Produce(kafka.Cluster, topic, before);

        IHost host = await WolverineApp.StartAsync(kafka.Cluster, dead, opts =>
            opts.ListenToKafkaTopic(topic).ReadProtobuf(DeadLetterTests.RegistryReader(reader)).EnableNativeDeadLetterQueue().Sequential());
        try
        {
            Handled.WaitFor(topic, 5, WolverineApp.Wait);
            registry.ResetRequestCounts();
            registry.FailNextRequests(FailedRequests, 503);
            WolverineApp.Produce(kafka.Cluster, topic, after);
            WolverineApp.Produce(kafka.Cluster, topic, [new() { Value = "a marker: bad data, after the rest"u8.ToArray() }]);

            IReadOnlyList<HandledRecord> handled = Handled.WaitFor(topic, 10, WolverineApp.Wait);
            Assert.Equal(
                Enumerable.Range(0, 5).Select(i => "before-" + i).Concat(Enumerable.Range(0, 5).Select(i => "after-" + i)),
                handled.Select(h => ((Reading)h.Message).SensorId));
            Assert.True(registry.RequestCount(guidPath) > FailedRequests, "the listener asked " + registry.RequestCount(guidPath) + " times");

            // Only the marker was dead-lettered (dead letters are written in order: anything of the outage would be first).
            ConsumeResult<byte[], byte[]> first = WolverineApp.Read(kafka.Cluster, dead, 1)[0];
            Assert.Equal("a marker: bad data, after the rest"u8.ToArray(), first.Message.Value);
            Assert.Equal(10, DeadLetter.Read(first).SourceOffset);
        }
        finally
        {
            await WolverineApp.StopAsync(host);
        }
    }

    [Fact]
    public async Task A_listener_stopped_during_an_outage_passes_no_record_and_the_next_host_reads_them_all()
    {
        using InProcessSchemaRegistry registry = InProcessSchemaRegistry.Start();
        using var writer = new RegistryClient(registry.Url);
        string topic = kafka.NewTopic("readings");
        string dead = kafka.NewTopic("dead");
        string group = "outage-" + Guid.NewGuid().ToString("N");
        var prefix = new RegistryProtobufSerializer<Reading>(writer);
        WolverineApp.Produce(kafka.Cluster, topic, Enumerable.Range(0, 3).Select(i => new Message<byte[], byte[]>
        {
            Value = prefix.Serialize(new Reading { SensorId = "before-" + i }, new SerializationContext(MessageComponentType.Value, topic))!,
        }));
        List<Message<byte[], byte[]>> after = [.. Enumerable.Range(0, 3).Select(i =>
        {
            (byte[] value, Headers headers) = DeadLetterTests.Write(writer, topic, new Reading { SensorId = "after-" + i });
            return new Message<byte[], byte[]> { Value = value, Headers = headers };
        })];

        using (var reader = new RegistryClient(registry.Url))
        {
            IHost first = await WolverineApp.StartAsync(kafka.Cluster, dead, AutoOffsetReset.Earliest, group, opts =>
                opts.ListenToKafkaTopic(topic).ReadProtobuf(DeadLetterTests.RegistryReader(reader)).EnableNativeDeadLetterQueue().Sequential());
            try
            {
                Handled.WaitFor(topic, 3, WolverineApp.Wait);
                registry.Stop();
                WolverineApp.Produce(kafka.Cluster, topic, after);
                Assert.True(
                    SpinWait.SpinUntil(() => CapturedLogs.Any("record of " + topic + " could not be obtained"), WolverineApp.Wait),
                    "the listener never waited for the registry");
            }
            finally
            {
                await WolverineApp.StopAsync(first); // stops while the listener waits for the registry
            }
        }

        registry.StartAgain();
        using var again = new RegistryClient(registry.Url);
        IHost second = await WolverineApp.StartAsync(kafka.Cluster, dead, AutoOffsetReset.Earliest, group, opts =>
            opts.ListenToKafkaTopic(topic).ReadProtobuf(DeadLetterTests.RegistryReader(again)).EnableNativeDeadLetterQueue().Sequential());
        try
        {
            SpinWait.SpinUntil(() => Handled.On(topic).Any(h => ((Reading)h.Message).SensorId == "after-2"), WolverineApp.Wait);
            List<string> sensors = [.. Handled.On(topic).Select(h => ((Reading)h.Message).SensorId)];
            List<string> afterOnes = [.. sensors.Where(s => s.StartsWith("after-", StringComparison.Ordinal))];
            Assert.Equal(["after-0", "after-1", "after-2"], afterOnes);
            Assert.Equal(3, sensors.Distinct().Count(s => s.StartsWith("before-", StringComparison.Ordinal)));
        }
        finally
        {
            await WolverineApp.StopAsync(second);
        }
    }
}
