using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
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

/// <summary>What cannot be read, or fails in its handler, reaches Wolverine's dead-letter queue as it was read; and back.</summary>
[Collection(KafkaTests.Name)]
public sealed class DeadLetterTests(KafkaFixture kafka)
{
    [Fact]
    public async Task Poison_and_unknown_ids_reach_the_dead_letter_queue_byte_for_byte_with_the_reason_and_their_real_source()
    {
        using InProcessSchemaRegistry registry = InProcessSchemaRegistry.Start();
        using var client = new RegistryClient(registry.Url);
        string topic = kafka.NewTopic("readings");
        string dead = kafka.NewTopic("dead");
        (byte[] good, Headers goodHeaders) = Write(client, topic, new Reading { SensorId = "good" });

        var garbage = new Headers
        {
            { "trace", "abc"u8.ToArray() },
            { "binary", [0xff, 0x00, 0xfe] },
            { DeadLetterHeaderNames.SourceTopic, "payments"u8.ToArray() }, // forged: the dead letter's source is where it was read
            { DeadLetterHeaderNames.SourceOffset, "7"u8.ToArray() },
        };
        byte[] unknownId = [0, 0, 0, 0x03, 0xe7, 0, 0x0a, 0x01, 0x78]; // schema id 999, path [0], sensor_id "x"
        byte[] badPayload = [.. good.Take(good.Length - (int)new Reading { SensorId = "good" }.CalculateSize()), 0x0a, 0x7f]; // a length past the end
        var poison = new List<Message<byte[], byte[]>>
        {
            new() { Value = "not a frame"u8.ToArray(), Headers = garbage },
            new() { Key = [0x01, 0x02], Value = unknownId, Headers = [] },
            new() { Value = badPayload, Headers = Copy(goodHeaders) }, // a binary GUID header, kept binary
        };
        WolverineApp.Produce(kafka.Cluster, topic, [
            new() { Value = good, Headers = Copy(goodHeaders) }, poison[0], new() { Value = good, Headers = Copy(goodHeaders) }, poison[1], poison[2]]);

        IHost host = await WolverineApp.StartAsync(kafka.Cluster, dead, opts =>
            opts.ListenToKafkaTopic(topic).ReadProtobuf(RegistryReader(client)).EnableNativeDeadLetterQueue());
        try
        {
            List<ConsumeResult<byte[], byte[]>> letters = WolverineApp.Read(kafka.Cluster, dead, poison.Count);
            Assert.Equal(2, Handled.WaitFor(topic, 2, WolverineApp.Wait).Count);

            long[] sourceOffsets = [1, 3, 4];
            for (int i = 0; i < poison.Count; i++)
            {
                ConsumeResult<byte[], byte[]> letter = letters.Single(l => l.Message.Value.AsSpan().SequenceEqual(poison[i].Value));
                Assert.Equal(poison[i].Key ?? [], letter.Message.Key ?? []);
                IHeader[] original = [.. poison[i].Headers];
                IHeader[] carried = [.. letter.Message.Headers.Take(original.Length)];
                Assert.Equal(original.Select(h => h.Key + "=" + Convert.ToHexString(h.GetValueBytes())), carried.Select(h => h.Key + "=" + Convert.ToHexString(h.GetValueBytes())));

                DeadLetter read = DeadLetter.Read(letter);
                Assert.Equal(topic, read.SourceTopic);
                Assert.Equal(0, read.SourcePartition);
                Assert.Equal(sourceOffsets[i], read.SourceOffset);
                Assert.True(Enum.TryParse(read.ErrorCode, out FrameErrorCode _), "not a frame error code: " + read.ErrorCode);
                Assert.Equal("value", read.Component);
            }
        }
        finally
        {
            await WolverineApp.StopAsync(host);
        }
    }

    [Fact]
    public async Task A_guid_header_survives_wolverines_dead_letter_queue_and_a_redrive_with_this_library()
    {
        using InProcessSchemaRegistry registry = InProcessSchemaRegistry.Start();
        using var client = new RegistryClient(registry.Url);
        string topic = kafka.NewTopic("readings");
        string dead = kafka.NewTopic("dead");
        string sensor = "fail-" + Guid.NewGuid().ToString("N");
        (byte[] value, Headers headers) = Write(client, topic, new Reading { SensorId = sensor, Value = 21.5 });
        byte[] guid = headers.GetLastBytes("__value_schema_id");
        TelemetryHandlers.Fail(sensor);
        WolverineApp.Produce(kafka.Cluster, topic, [new() { Value = value, Headers = Copy(headers) }]);

        IHost host = await WolverineApp.StartAsync(kafka.Cluster, dead, opts =>
            opts.ListenToKafkaTopic(topic).ReadProtobuf(RegistryReader(client)).EnableNativeDeadLetterQueue());
        try
        {
            ConsumeResult<byte[], byte[]> letter = WolverineApp.Read(kafka.Cluster, dead, 1)[0];
            DeadLetter read = DeadLetter.Read(letter);
            Assert.Equal(typeof(InvalidOperationException).FullName, read.ErrorCode);
            Assert.Equal("handler", read.Component);
            Assert.Equal(value, letter.Message.Value);
            Assert.Equal(guid, letter.Message.Headers.GetLastBytes("__value_schema_id"));

            TelemetryHandlers.Heal(sensor);
            RedriveSummary summary = DeadLetterRedrive.Run(kafka.Cluster.CreateConsumerConfig("redrive-" + Guid.NewGuid().ToString("N")), new RedriveOptions { DeadLetterTopic = dead });
            Assert.Equal(1, summary.Written);

            HandledRecord handled = Handled.WaitFor(topic, 1, WolverineApp.Wait)[0];
            Assert.Equal(new Reading { SensorId = sensor, Value = 21.5 }, handled.Message);
            Assert.Equal(guid, handled.RecordHeaders!.GetLastBytes("__value_schema_id"));
            Assert.Equal(1, handled.Offset); // the redriven copy, after the original
        }
        finally
        {
            TelemetryHandlers.Heal(sensor);
            await WolverineApp.StopAsync(host);
        }
    }

    internal static MultiTypeProtobufDeserializer RegistryReader(RegistryClient client) =>
        new([TelemetryReflection.Descriptor], new MultiTypeDeserializerOptions { WriterSchemas = { Source = client } });

    /// <summary>A record as this library's registering serializer writes it, the schema's GUID in a header.</summary>
    internal static (byte[] Value, Headers Headers) Write<T>(RegistryClient client, string topic, T message)
        where T : class, IMessage<T>, new()
    {
        var serializer = new RegistryProtobufSerializer<T>(client, new RegistrySerializerOptions { SchemaIdPlacement = SchemaIdPlacement.Header });
        var headers = new Headers();
        byte[] value = serializer.Serialize(message, new SerializationContext(MessageComponentType.Value, topic, headers))!;
        return (value, headers);
    }

    internal static Headers Copy(Headers headers)
    {
        var copy = new Headers();
        foreach (IHeader header in headers)
        {
            copy.Add(header.Key, header.GetValueBytes());
        }

        return copy;
    }
}
