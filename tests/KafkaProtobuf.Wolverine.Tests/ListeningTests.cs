using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Wolverine.Tests.Support;
using Microsoft.Extensions.Hosting;
using Vectors.Telemetry.V1;
using Wolverine.Kafka;
using Xunit;

namespace KafkaProtobuf.Wolverine.Tests;

[Collection(KafkaTests.Name)]
public sealed class ListeningTests(KafkaFixture kafka)
{
    [Fact]
    public async Task Confluent_serializer_frames_reach_the_handler_of_their_type_with_prefix_ids_and_guid_headers()
    {
        string topic = kafka.NewTopic("vectors");
        IReadOnlyList<ValueVector> vectors = ValueVector.All;
        WolverineApp.Produce(kafka.Cluster, topic, vectors.Select(v => new Message<byte[], byte[]> { Value = v.Data, Headers = v.KafkaHeaders() }));

        IHost host = await WolverineApp.StartAsync(kafka.Cluster, kafka.NewTopic("dead"), opts =>
            opts.ListenToKafkaTopic(topic).ReadProtobuf(MultiTypeProtobufDeserializer.ForFiles(TelemetryReflection.Descriptor)).EnableNativeDeadLetterQueue());
        try
        {
            IReadOnlyList<HandledRecord> handled = Handled.WaitFor(topic, vectors.Count, WolverineApp.Wait);

            Assert.Equal(
                vectors.Select(v => v.Type + " " + Convert.ToHexString(v.Payload)).Order(),
                handled.Select(h => h.Message.Descriptor.FullName + " " + Convert.ToHexString(h.Message.ToByteArray())).Order());
            // The binary GUID headers reach the handler as the bytes they were written as.
            Assert.Equal(
                vectors.Select(v => Describe(v.Type, v.Payload, v.KafkaHeaders())).Order(),
                handled.Select(h => Describe(h.Message.Descriptor.FullName, h.Message.ToByteArray(), h.RecordHeaders!)).Order());
            Assert.Equal(10, handled.Count(h => h.RecordHeaders!.Count == 1));
        }
        finally
        {
            await WolverineApp.StopAsync(host);
        }
    }

    [Fact]
    public async Task Frames_without_message_indexes_as_kafkajs_writes_them_reach_the_first_types_handler_when_opted_in()
    {
        using InProcessSchemaRegistry registry = InProcessSchemaRegistry.Start();
        using var client = new RegistryClient(registry.Url);
        string topic = kafka.NewTopic("kafkajs");
        SchemaIdentifier id = await new RegistryProtobufSerializer<Reading>(client).WarmUpAsync(topic, MessageComponentType.Value);

        // @kafkajs/confluent-schema-registry: magic byte, schema id, then the payload (no message-index path).
        var readings = Enumerable.Range(0, 3).Select(i => new Reading { SensorId = "kafkajs-" + i, Value = i }).ToList();
        WolverineApp.Produce(kafka.Cluster, topic, readings.Select(r =>
        {
            byte[] frame = new byte[5 + r.CalculateSize()];
            BinaryPrimitives.WriteInt32BigEndian(frame.AsSpan(1), id.Id!.Value);
            r.WriteTo(frame.AsSpan(5));
            return new Message<byte[], byte[]> { Value = frame };
        }));

        var options = new MultiTypeDeserializerOptions { WriterSchemas = { Source = client } };
        options.Framing.MessageIndexPresence = MessageIndexPresence.Absent;
        IHost host = await WolverineApp.StartAsync(kafka.Cluster, kafka.NewTopic("dead"), opts =>
            opts.ListenToKafkaTopic(topic).ReadProtobuf(new MultiTypeProtobufDeserializer([TelemetryReflection.Descriptor], options)).EnableNativeDeadLetterQueue());
        try
        {
            Assert.Equal(readings, Handled.WaitFor(topic, 3, WolverineApp.Wait).Select(h => h.Message).OrderBy(m => ((Reading)m).Value));
        }
        finally
        {
            await WolverineApp.StopAsync(host);
        }
    }

    [Fact]
    public async Task Tombstones_skipped_types_and_wolverine_pings_are_neither_dead_lettered_nor_stop_the_records_after_them()
    {
        string topic = kafka.NewTopic("mixed");
        string dead = kafka.NewTopic("dead");
        string key = "deleted-" + Guid.NewGuid().ToString("N");
        ValueVector reading = ValueVector.All.First(v => v.Name == "confluent-dotnet/prefix/value/Reading");
        ValueVector device = ValueVector.All.First(v => v.Name == "confluent-dotnet/prefix/value/Device");
        WolverineApp.Produce(kafka.Cluster, topic, [
            new() { Key = Encoding.UTF8.GetBytes(key), Value = null! },
            new() { Value = device.Data },                                                                  // a type this listener skips
            new() { Value = [1, 2, 3, 4], Headers = new Headers { { "message-type", "wolverine-ping"u8.ToArray() } } }, // Wolverine's sender ping
            new() { Value = reading.Data },
            new() { Value = "the marker: bad data, last"u8.ToArray() }]);

        var options = new MultiTypeDeserializerOptions { UnregisteredMessageTypes = UnregisteredMessageTypeHandling.Skip };
        IHost host = await WolverineApp.StartAsync(kafka.Cluster, dead, opts =>
            opts.ListenToKafkaTopic(topic).ReadProtobuf(new MultiTypeProtobufDeserializer([Reading.Descriptor], options)).EnableNativeDeadLetterQueue());
        try
        {
            Assert.Equal(reading.Payload, Handled.WaitFor(topic, 1, WolverineApp.Wait)[0].Message.ToByteArray());
            Assert.Contains(key, TelemetryHandlers.Tombstones);

            // Only the marker, the last record, was dead-lettered (dead letters are written in order).
            ConsumeResult<byte[], byte[]> first = WolverineApp.Read(kafka.Cluster, dead, 1)[0];
            Assert.Equal("the marker: bad data, last"u8.ToArray(), first.Message.Value);
            Assert.Single(Handled.On(topic));
        }
        finally
        {
            await WolverineApp.StopAsync(host);
        }
    }

    [Fact]
    public async Task A_records_own_headers_named_as_wolverines_and_a_timestamp_out_of_range_set_nothing_on_its_envelope()
    {
        string topic = kafka.NewTopic("forged");
        ValueVector reading = ValueVector.All.First(v => v.Name == "confluent-dotnet/prefix/value/Reading");
        var headers = new Headers
        {
            { "trace", "abc"u8.ToArray() },
            { "reply-uri", "kafka://topic/attacker"u8.ToArray() },
            { "tenant-id", "someone-else"u8.ToArray() },
            { "exception-type", "Forged"u8.ToArray() },
            { "kafkaprotobuf.wolverine.record-headers", "AAAAAA=="u8.ToArray() },
        };
        // A writer's clock no DateTime can hold, too: metadata, not a reason to fail the record.
        WolverineApp.Produce(kafka.Cluster, topic, [new() { Value = reading.Data, Headers = headers, Timestamp = new Timestamp(long.MaxValue / 2, TimestampType.CreateTime) }]);

        IHost host = await WolverineApp.StartAsync(kafka.Cluster, kafka.NewTopic("dead"), opts =>
            opts.ListenToKafkaTopic(topic).ReadProtobuf(MultiTypeProtobufDeserializer.ForFiles(TelemetryReflection.Descriptor)).EnableNativeDeadLetterQueue());
        try
        {
            HandledRecord handled = Handled.WaitFor(topic, 1, WolverineApp.Wait)[0];

            Assert.Equal("abc", handled.EnvelopeHeaders["trace"]);
            Assert.DoesNotContain("reply-uri", handled.EnvelopeHeaders.Keys);
            Assert.DoesNotContain("tenant-id", handled.EnvelopeHeaders.Keys);
            Assert.DoesNotContain("exception-type", handled.EnvelopeHeaders.Keys);
            Assert.Null(handled.TenantId);
            Assert.Null(handled.ReplyUri);
            Assert.Equal(
                headers.Select(h => h.Key + "=" + Convert.ToHexString(h.GetValueBytes())),
                handled.RecordHeaders!.Select(h => h.Key + "=" + Convert.ToHexString(h.GetValueBytes())));
        }
        finally
        {
            await WolverineApp.StopAsync(host);
        }
    }

    private static string Describe(string type, byte[] payload, Headers headers) =>
        type + " " + Convert.ToHexString(payload) + string.Concat(headers.Select(h => " " + h.Key + "=" + Convert.ToHexString(h.GetValueBytes())));
}
