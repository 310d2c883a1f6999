using System;
using System.Linq;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Wolverine.Tests.Support;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Vectors.Telemetry.V1;
using Wolverine;
using Wolverine.Kafka;
using Wolverine.Util;
using Xunit;

namespace KafkaProtobuf.Wolverine.Tests;

/// <summary>Messages published through a route are framed by the registering serializer, under the route's real topic.</summary>
[Collection(KafkaTests.Name)]
public sealed class PublishingTests(KafkaFixture kafka)
{
    [Fact]
    public async Task Published_messages_are_registered_under_the_routes_topic_with_the_id_in_the_prefix_or_a_binary_header()
    {
        using InProcessSchemaRegistry registry = InProcessSchemaRegistry.Start();
        using var client = new RegistryClient(registry.Url);
        string prefixed = kafka.NewTopic("readings");
        string headed = kafka.NewTopic("devices");

        IHost host = await WolverineApp.StartAsync(kafka.Cluster, kafka.NewTopic("dead"), opts =>
        {
            opts.PublishMessage<Reading>().ToKafkaTopic(prefixed).WriteProtobuf(client).SendInline();
            opts.PublishMessage<Device>().ToKafkaTopic(headed)
                .WriteProtobuf(client, new RegistrySerializerOptions { SchemaIdPlacement = SchemaIdPlacement.Header }).SendInline();
        });
        try
        {
            IMessageBus bus = host.Services.GetRequiredService<IMessageBus>();
            await bus.PublishAsync(new Reading { SensorId = "published", Value = 3.5 });
            await bus.PublishAsync(new Device { Id = "device-1" });

            ConsumeResult<byte[], byte[]> reading = WolverineApp.Read(kafka.Cluster, prefixed, 1)[0];
            ConsumeResult<byte[], byte[]> device = WolverineApp.Read(kafka.Cluster, headed, 1)[0];

            // The subjects are the routes' topics' (TopicNameStrategy), not "-value" of an empty topic name.
            RegistrySchema readingSchema = await client.GetLatestVersionAsync(prefixed + "-value");
            Assert.Equal(readingSchema.Id, System.Buffers.Binary.BinaryPrimitives.ReadInt32BigEndian(reading.Message.Value.AsSpan(1, 4)));
            Assert.Single(await client.GetVersionsAsync(headed + "-value"));

            var reader = DeadLetterTests.RegistryReader(client);
            Assert.Equal(new Reading { SensorId = "published", Value = 3.5 },
                reader.Deserialize(reading.Message.Value, false, new SerializationContext(MessageComponentType.Value, prefixed, reading.Message.Headers)));
            Assert.Equal(new Device { Id = "device-1" },
                reader.Deserialize(device.Message.Value, false, new SerializationContext(MessageComponentType.Value, headed, device.Message.Headers)));
            Assert.True(device.Message.Headers.TryGetLastBytes("__value_schema_id", out byte[] id) && id[0] == 1 && id.Length > 16, "the schema id header is the binary GUID form");
            Assert.DoesNotContain(device.Message.Headers.Concat(reading.Message.Headers), h => h.Key.StartsWith("kafkaprotobuf.", StringComparison.Ordinal));
        }
        finally
        {
            await WolverineApp.StopAsync(host);
        }
    }

    [Fact]
    public async Task A_route_that_names_its_topic_per_message_writes_under_that_topics_subject()
    {
        using InProcessSchemaRegistry registry = InProcessSchemaRegistry.Start();
        using var client = new RegistryClient(registry.Url);
        string topic = typeof(Reading).ToMessageTypeName(); // Wolverine's topic for a type with no [Topic]: its message type name
        kafka.Cluster.CreateTopic(topic, 1); // one partition, to read it from

        IHost host = await WolverineApp.StartAsync(kafka.Cluster, kafka.NewTopic("dead"), opts =>
        {
            opts.PublishMessage<Reading>().ToKafkaTopics().WriteProtobuf(client).SendInline();
        });
        try
        {
            await host.Services.GetRequiredService<IMessageBus>().PublishAsync(new Reading { SensorId = "routed", Value = 1.5 });

            ConsumeResult<byte[], byte[]> reading = WolverineApp.Read(kafka.Cluster, topic, 1)[0];
            RegistrySchema schema = await client.GetLatestVersionAsync(topic + "-value"); // the record's topic, not "wolverine.topics"
            Assert.Equal(schema.Id, System.Buffers.Binary.BinaryPrimitives.ReadInt32BigEndian(reading.Message.Value.AsSpan(1, 4)));
            Assert.Equal(new Reading { SensorId = "routed", Value = 1.5 }, DeadLetterTests.RegistryReader(client)
                .Deserialize(reading.Message.Value, false, new SerializationContext(MessageComponentType.Value, topic, reading.Message.Headers)));
        }
        finally
        {
            await WolverineApp.StopAsync(host);
        }
    }

    [Fact]
    public async Task A_topic_published_and_read_by_one_application_round_trips_through_its_handler()
    {
        using InProcessSchemaRegistry registry = InProcessSchemaRegistry.Start();
        using var client = new RegistryClient(registry.Url);
        string topic = kafka.NewTopic("alerts");

        IHost host = await WolverineApp.StartAsync(kafka.Cluster, kafka.NewTopic("dead"), opts =>
        {
            opts.ListenToKafkaTopic(topic).ReadProtobuf(DeadLetterTests.RegistryReader(client)).EnableNativeDeadLetterQueue();
            opts.PublishMessage<Alert>().ToKafkaTopic(topic)
                .WriteProtobuf(client, new RegistrySerializerOptions { SchemaIdPlacement = SchemaIdPlacement.Header }).SendInline();
        });
        try
        {
            var alert = new Alert { DeviceId = "d", Severity = Alert.Types.Severity.Critical, Text = "hot" };
            await host.Services.GetRequiredService<IMessageBus>().PublishAsync(alert);

            HandledRecord handled = Handled.WaitFor(topic, 1, WolverineApp.Wait)[0];
            Assert.Equal(alert, handled.Message);
            Assert.Equal(1, handled.RecordHeaders!.GetLastBytes("__value_schema_id")[0]);
        }
        finally
        {
            await WolverineApp.StopAsync(host);
        }
    }
}
