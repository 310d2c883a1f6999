using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using System.Text.Json;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Streamiz;
using KafkaProtobuf.Tests.Hosting;
using KafkaProtobuf.Tests.Support;
using KafkaProtobuf.Tests.Tool;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Hosting;
using Streamiz.Kafka.Net;
using Vectors.Telemetry.V1;
using Xunit;
using static KafkaProtobuf.Tests.EndToEnd.DeviceRecords;

namespace KafkaProtobuf.Tests.Hostile;

/// <summary>
/// Every record of <see cref="HostileRecords"/>, each followed by a good one, through every reader: the hosted consumer in
/// each mode (sequential, partition-parallel, per key, batches, retry topics), both deserializers, the Streamiz serdes and
/// kafka-protobuf. A bad record is dead-lettered byte for byte with its code (the tool prints it as an error), the good
/// record behind it is handled, each partition in its order and once, health ends healthy, nothing stops.
/// </summary>
public sealed class HostileRecordTableTests : HostedConsumerTestBase
{
    private readonly ScriptedRegistry _registry = new();

    public HostileRecordTableTests()
        : base("hostile")
    {
        HostileRecords.Script(_registry);
    }

    /// <summary>Where each record landed: the hostile ones by row, the good ones by their Device's id.</summary>
    private sealed record Layout(Dictionary<TopicPartitionOffset, HostileRecord> Hostile, Dictionary<TopicPartitionOffset, string> Good, int Partitions);

    public static TheoryData<string> Modes() => ["sequential", "partition-parallel", "per key", "batches", "retry topics"];

    [Theory]
    [MemberData(nameof(Modes))]
    public async Task TheHostedConsumer_DeadLettersEachHostileRecord_HandlesTheGoodOneBehindIt_InOrder_AndEndsHealthy(string mode)
    {
        string topic = "hostile-" + mode.Replace(' ', '-');
        Layout layout = Produce(topic);
        Cluster.CreateTopic(topic + ".dlq", 1);
        Cluster.CreateTopic(topic + ".retry.1", 1);
        using var registry = new RegistryClient(new RegistryClientOptions { Urls = { _registry.Url }, RetryBackoff = TimeSpan.FromMilliseconds(10), MaxRetryBackoff = TimeSpan.FromMilliseconds(50) });
        var handled = new ConcurrentQueue<(int Partition, long Offset, string Id)>();
        void Handled(ConsumeResult<string, Device> record) => handled.Enqueue((record.Partition.Value, record.Offset.Value, record.Message.Value.Id));

        using IHost host = StartHost("hostile", topic, builder =>
        {
            builder.WithProtobufValues(_ => registry);
            if (mode == "batches")
            {
                builder.HandleBatch((batch, _) =>
                {
                    foreach (ConsumeResult<string, Device> record in batch)
                    {
                        Handled(record);
                    }

                    return Task.CompletedTask;
                });
            }
            else
            {
                builder.Handle((record, _) =>
                {
                    Handled(record);
                    return Task.CompletedTask;
                });
            }
        }, options =>
        {
            options.MaxConcurrentHandlers = mode is "partition-parallel" or "per key" ? 4 : 1;
            options.HandlingOrder = mode == "per key" ? HandlingOrder.Key : HandlingOrder.Partition;
            options.Batches.MaxSize = 10;
            options.Batches.MaxWait = TimeSpan.FromMilliseconds(100);
            if (mode == "retry topics")
            {
                options.RetryTopics.Delays.Add(TimeSpan.FromMilliseconds(200));
            }
        }, services => services.AddHealthChecks().AddKafkaProtobufConsumers());

        int letters = layout.Hostile.Values.Count(r => r.Typed is not null);
        int records = layout.Hostile.Count + layout.Good.Count - layout.Hostile.Values.Count(r => r.Typed is null); // a good hostile record is in both
        Wait.Until(
            () => handled.Count >= layout.Good.Count && Committed(topic, layout.Partitions).Sum() == records,
            () => "every good record handled and every offset committed; handled " + handled.Count + " of " + layout.Good.Count + ", committed " + string.Join(",", Committed(topic, layout.Partitions)) + " of " + records,
            Deadline);
        HealthReport health = await host.Services.GetRequiredService<HealthCheckService>().CheckHealthAsync();
        List<ConsumeResult<byte[], byte[]>> deadLetters = ReadDeadLetters(Cluster.CreateConsumerConfig(), topic + ".dlq", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        // Each bad record dead-lettered once, byte for byte, with its code; each good one handled once, in its partition's order.
        Assert.Equal(letters, deadLetters.Count);
        foreach (ConsumeResult<byte[], byte[]> letter in deadLetters)
        {
            TopicPartitionOffset source = SourceOf(letter.Message.Headers);
            HostileRecord row = layout.Hostile[source];
            Assert.Equal(row.Typed.ToString(), Encoding.UTF8.GetString(letter.Message.Headers.GetLastBytes(DeadLetterHeaderNames.ErrorCode)));
            Assert.Equal(row.Value, letter.Message.Value ?? []);
        }

        for (int p = 0; p < layout.Partitions; p++)
        {
            IEnumerable<string> expected = layout.Good.Where(g => g.Key.Partition.Value == p).OrderBy(g => g.Key.Offset.Value).Select(g => g.Value);
            IEnumerable<string> seen = handled.Where(h => h.Partition == p).Select(h => h.Id);

            // Per key, only a key's records keep their order, and every record here has a key of its own.
            Assert.Equal(mode == "per key" ? expected.Order() : expected, mode == "per key" ? seen.Order() : seen);
        }

        Assert.Equal(HealthStatus.Healthy, health.Status);
    }

    [Fact]
    public void BothDeserializers_TellEachHostileRecordsFault_WithItsCode_AndReadEveryGoodOne()
    {
        using var registry = new RegistryClient(new RegistryClientOptions { Urls = { _registry.Url } });
        var typed = new FramedProtobufDeserializer<Device>(new FramedDeserializerOptions { VerifyWriterType = true, WriterSchemas = { Source = registry } });
        var multi = new MultiTypeProtobufDeserializer([TelemetryReflection.Descriptor], new MultiTypeDeserializerOptions { WriterSchemas = { Source = registry } });

        foreach (HostileRecord row in HostileRecords.All)
        {
            var context = new SerializationContext(MessageComponentType.Value, "hostile", row.Headers);
            Assert.Equal(row.Typed, Fault(() => typed.Deserialize(row.Value, false, context)));
            Assert.Equal(row.Multi, Fault(() => multi.Deserialize(row.Value, false, context)));
            Assert.Equal(row.Typed ?? FrameErrorCode.None, typed.TryDeserialize(row.Value, false, context, out _, out FrameError error) ? FrameErrorCode.None : error.Code);
            Assert.Equal("device-3", typed.Deserialize(HostileRecords.Good(3), false, new SerializationContext(MessageComponentType.Value, "hostile"))?.Id); // the good record behind it
        }

        FrameErrorCode? Fault(Func<object?> read)
        {
            try
            {
                read();
                return null;
            }
            catch (InvalidFrameException e)
            {
                Assert.InRange(e.Message.Length, 1, 5_000); // never the record, nor a registry's answer, quoted whole
                return e.ErrorCode;
            }
        }
    }

    [Fact]
    public void TheStreamizSerdes_ThrowBadDataForEveryBadRecord_WhichTheHandlerSkips_AndReadEveryGoodOne()
    {
        using var registry = new RegistryClient(new RegistryClientOptions { Urls = { _registry.Url } });
        var serdes = new RegistryProtobufSerDes<Device>(registry);

        foreach (HostileRecord row in HostileRecords.All)
        {
            var context = new SerializationContext(MessageComponentType.Value, "hostile", row.Headers);
            if (row.Typed is null)
            {
                Assert.NotNull(serdes.Deserialize(row.Value, context));
                continue;
            }

            // The schema id is read from the prefix only (state stores lose headers): a header's fault is the prefix's here.
            InvalidFrameException bad = Assert.Throws<InvalidFrameException>(() => serdes.Deserialize(row.Value, context));
            var record = new ConsumeResult<byte[], byte[]> { TopicPartitionOffset = new TopicPartitionOffset("hostile", 0, 1), Message = new Message<byte[], byte[]> { Value = row.Value } };
            Assert.Equal(ExceptionHandlerResponse.CONTINUE, ProtobufDeserializationHandler.ContinueOnBadDataOnly(null!, record, bad)); // was FAIL for a schema it could not use: a crash loop
            Assert.Equal("device-3", serdes.Deserialize(HostileRecords.Good(3), new SerializationContext(MessageComponentType.Value, "hostile"))!.Id);
        }
    }

    [Fact]
    public async Task KafkaProtobuf_PrintsEachHostileRecordAsAnErrorLine_DecodesEveryGoodOne_AndNeverLetsAnEscapeReachTheTerminal()
    {
        Layout layout = Produce("hostile-tool");

        ToolProcess.Result run = await ToolProcess.RunAsync(
            "consume", "--bootstrap-servers", Cluster.BootstrapServers, "--topic", "hostile-tool", "--from-beginning", "--until-end", "--schema-registry", _registry.Url);

        Assert.True(run.ExitCode == 0, run.Error);
        Assert.DoesNotContain(run.Output + run.Error, c => c is '\u001b' or '\u0007' or (>= '\u202a' and <= '\u202e') or (>= '\u2066' and <= '\u2069'));
        List<JsonElement> lines = [.. run.Output.Split('\n', StringSplitOptions.RemoveEmptyEntries).Select(line => JsonDocument.Parse(line).RootElement.Clone())];
        Assert.Equal(layout.Hostile.Count + layout.Good.Count - layout.Hostile.Values.Count(r => r.Typed is null), lines.Count);
        foreach (JsonElement line in lines)
        {
            var position = new TopicPartitionOffset("hostile-tool", line.GetProperty("partition").GetInt32(), line.GetProperty("offset").GetInt64());
            JsonElement value = line.GetProperty("value");
            if (!layout.Hostile.TryGetValue(position, out HostileRecord? row))
            {
                Assert.StartsWith("device-", value.GetProperty("message").GetProperty("id").GetString() ?? string.Empty, StringComparison.Ordinal); // the good record behind
            }
            else if (row.Tool is not null)
            {
                Assert.Contains(row.Tool, value.GetProperty("error").GetProperty("message").GetString(), StringComparison.Ordinal);
            }
            else
            {
                Assert.False(value.TryGetProperty("error", out _), row.ToString());
                Assert.True(value.TryGetProperty("message", out _), row.ToString());
            }
        }
    }

    [Theory]
    [InlineData(1)]
    [InlineData(3)]
    public async Task ASchemaTheApplicationMayNotRead_403_HoldsOnlyItsPartition_HealthNamesIt_NothingStops_AndItGoesOnOncePermitted(int maxConcurrentHandlers)
    {
        string topic = "forbidden-" + maxConcurrentHandlers;
        Cluster.CreateTopic(topic, 3);
        Cluster.CreateTopic(topic + ".dlq", 1);
        _registry.Error("/schemas/ids/10", 403, 40301, "User is denied operation Read on Subject: secret-value");
        using (IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(Cluster.CreateProducerConfig()).Build())
        {
            for (int i = 0; i < 20; i++)
            {
                for (int p = 0; p < 3; p++)
                {
                    byte[] value = p == 0 && i == 5 ? [0, 0, 0, 0, 10, 2, 2, .. new Device { Id = "device-forbidden" }.ToByteArray()] : HostileRecords.Good((p * 100) + i);
                    producer.Produce(new TopicPartition(topic, p), new Message<byte[], byte[]> { Key = Encoding.UTF8.GetBytes("k" + i), Value = value });
                }
            }

            Assert.Equal(0, producer.Flush(Deadline));
        }

        using var registry = new RegistryClient(new RegistryClientOptions { Urls = { _registry.Url }, RetryBackoff = TimeSpan.FromMilliseconds(10), MaxRetryBackoff = TimeSpan.FromMilliseconds(50) });
        var handled = new ConcurrentQueue<(int Partition, string Id)>();
        using IHost host = StartHost("forbidden", topic, builder => builder.WithProtobufValues(_ => registry).Handle((record, _) =>
        {
            handled.Enqueue((record.Partition.Value, record.Message.Value.Id));
            return Task.CompletedTask;
        }), options => options.MaxConcurrentHandlers = maxConcurrentHandlers, services => services.AddHealthChecks().AddKafkaProtobufConsumers());
        var health = host.Services.GetRequiredService<HealthCheckService>();

        // Degraded, with every other partition's record and partition 0's up to the forbidden one handled.
        HealthReport whileForbidden = await PollHealth(health, HealthStatus.Degraded, () => handled.Count(h => h.Partition != 0) == 40 && handled.Count(h => h.Partition == 0) == 5);
        _registry.Schema(10, Google.Protobuf.Reflection.FileDescriptorProto.Parser.ParseFrom(TelemetryReflection.Descriptor.SerializedData)); // permission granted
        HealthReport afterwards = await PollHealth(health, HealthStatus.Healthy, () => handled.Count == 60); // the forbidden record and the rest of its partition, once permitted
        await host.StopAsync().WaitAsync(Deadline);

        // Degraded, not Unhealthy: the consumer did not stop, nor the application; and said so while the other partitions flowed.
        Assert.Contains("forbidden cannot obtain a writer's schema for " + topic + " [0] (", whileForbidden.Entries.Values.Single().Description, StringComparison.Ordinal);
        Assert.Contains("403", whileForbidden.Entries.Values.Single().Description, StringComparison.Ordinal);
        Assert.Equal(HealthStatus.Healthy, afterwards.Status);
        Assert.Equal(60, handled.Count);
        Assert.Equal(["device-0", "device-1", "device-2", "device-3", "device-4", "device-forbidden"], handled.Where(h => h.Partition == 0).Select(h => h.Id).Take(6));
        Assert.Empty(ReadDeadLetters(Cluster.CreateConsumerConfig(), topic + ".dlq", Deadline)); // not bad data: nothing dead-lettered
    }

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            _registry.Dispose();
        }

        base.Dispose(disposing);
    }

    /// <summary>Each hostile record, then a good one, over two partitions; where each landed.</summary>
    private Layout Produce(string topic)
    {
        const int Partitions = 2;
        Cluster.CreateTopic(topic, Partitions);
        var layout = new Layout([], [], Partitions);
        using IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(new ProducerConfig(Cluster.CreateProducerConfig()) { MessageMaxBytes = 10_000_000 }).Build();
        for (int i = 0; i < HostileRecords.All.Count; i++)
        {
            HostileRecord row = HostileRecords.All[i];
            var partition = new TopicPartition(topic, i % Partitions);
            DeliveryResult<byte[], byte[]> hostile = producer.ProduceAsync(partition, new Message<byte[], byte[]> { Key = Encoding.UTF8.GetBytes("h" + i), Value = row.Value, Headers = row.Headers }).GetAwaiter().GetResult();
            layout.Hostile[hostile.TopicPartitionOffset] = row;
            if (row.Typed is null)
            {
                layout.Good[hostile.TopicPartitionOffset] = Device.Parser.ParseFrom(row.Value.AsSpan(7)).Id; // a good record with something odd about it
            }

            DeliveryResult<byte[], byte[]> good = producer.ProduceAsync(partition, new Message<byte[], byte[]> { Key = Encoding.UTF8.GetBytes("g" + i), Value = HostileRecords.Good(i) }).GetAwaiter().GetResult();
            layout.Good[good.TopicPartitionOffset] = "device-" + i.ToString(System.Globalization.CultureInfo.InvariantCulture);
        }

        return layout;
    }
}
