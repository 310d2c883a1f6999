using System;
using System.Collections.Generic;
using System.Linq;
using Confluent.Kafka;
using KafkaProtobuf.Framing;
using KafkaProtobuf.Testing;
using Vectors.Telemetry.V1;
using Xunit;

namespace KafkaProtobuf.Tests.EndToEnd;

public class BuilderRoundTripTests
{
    [Fact]
    public void ProducerAndConsumerBuiltWithTheExtensions_RoundTripThroughTheEmbeddedBroker()
    {
        using var cluster = EmbeddedKafkaCluster.Start(1);
        string topic = "builders";
        cluster.CreateTopic(topic, 3);
        var sent = new List<(Reading Key, Device? Value)>
        {
            (new Reading { SensorId = "k1" }, new Device { Id = "dev-1", Labels = { ["site"] = "a" } }),
            (new Reading { SensorId = "k2" }, null), // tombstone
            (new Reading { SensorId = "k3" }, new Device { Id = "dev-3", Location = new() { Lat = 1.5, Lon = -2 } }),
        };

        using (IProducer<Reading, Device> producer = new ProducerBuilder<Reading, Device>(cluster.CreateProducerConfig())
            .SetProtobufKeySerializer(SchemaIdentifier.FromId(11))
            .SetProtobufValueSerializer(SchemaIdentifier.FromGuid(Guid.NewGuid()), new FramedSerializerOptions { SchemaIdPlacement = SchemaIdPlacement.Header })
            .Build())
        {
            foreach ((Reading key, Device? value) in sent)
            {
                producer.Produce(topic, new Message<Reading, Device> { Key = key, Value = value! });
            }

            Assert.Equal(0, producer.Flush(TimeSpan.FromSeconds(30)));
        }

        using IConsumer<Reading, Device> consumer = new ConsumerBuilder<Reading, Device>(cluster.CreateConsumerConfig())
            .SetProtobufKeyDeserializer()
            .SetProtobufValueDeserializer()
            .Build();
        consumer.Assign(Enumerable.Range(0, 3).Select(p => new TopicPartitionOffset(topic, p, Offset.Beginning)));

        var received = new List<(Reading Key, Device? Value, Headers Headers)>();
        DateTime deadline = DateTime.UtcNow.AddSeconds(30);
        while (received.Count < sent.Count && DateTime.UtcNow < deadline)
        {
            ConsumeResult<Reading, Device>? result = consumer.Consume(TimeSpan.FromMilliseconds(200));
            if (result is not null)
            {
                received.Add((result.Message.Key, result.Message.Value, result.Message.Headers));
            }
        }

        // Keys spread over the topic's partitions, so compare by key rather than by arrival order.
        Assert.Equal(sent.Count, received.Count);
        var byKey = received.ToDictionary(r => r.Key.SensorId);
        foreach ((Reading key, Device? value) in sent)
        {
            Assert.Equal(key, byKey[key.SensorId].Key);
            Assert.Equal(value, byKey[key.SensorId].Value);
        }

        Headers headers = byKey["k1"].Headers;
        Assert.True(headers.TryGetLastBytes(SchemaIdHeaderNames.Value, out _)); // values: header placement
        Assert.False(headers.TryGetLastBytes(SchemaIdHeaderNames.Key, out _)); // keys: prefix placement
    }
}
