using System;
using Confluent.Kafka;
using KafkaProtobuf.Framing;
using Vectors.Telemetry.V1;
using Xunit;

namespace KafkaProtobuf.Tests.Builders;

public class BuilderExtensionTests
{
    private static readonly ConsumerConfig AnyConsumer = new() { BootstrapServers = "127.0.0.1:9", GroupId = "g" };
    private static readonly ProducerConfig AnyProducer = new() { BootstrapServers = "127.0.0.1:9" };

    // Confluent.Kafka keeps the configured (de)serializers in protected properties; these subclasses read them.
    private sealed class InspectableConsumerBuilder<TKey, TValue>(ConsumerConfig config) : ConsumerBuilder<TKey, TValue>(config)
    {
        public IDeserializer<TKey> Keys => KeyDeserializer;

        public IDeserializer<TValue> Values => ValueDeserializer;
    }

    private sealed class InspectableProducerBuilder<TKey, TValue>(ProducerConfig config) : ProducerBuilder<TKey, TValue>(config)
    {
        public ISerializer<TKey> Keys => KeySerializer;

        public ISerializer<TValue> Values => ValueSerializer;
    }

    [Fact]
    public void SetProtobufValueDeserializer_InstallsOurDeserializerWithTheOptions()
    {
        var builder = new InspectableConsumerBuilder<string, Device>(AnyConsumer);
        ConsumerBuilder<string, Device> returned = builder.SetProtobufValueDeserializer(
            new FramedDeserializerOptions { Framing = { MessageIndexEncoding = MessageIndexEncoding.LegacyUnsigned, SchemaIdLookup = SchemaIdLookup.PrefixOnly } });

        Assert.Same(builder, returned);
        FramedProtobufDeserializer<Device> deserializer = Assert.IsType<FramedProtobufDeserializer<Device>>(builder.Values);
        Assert.Equal(MessageIndexEncoding.LegacyUnsigned, deserializer.FrameReader.MessageIndexEncoding);
        Assert.Equal(SchemaIdLookup.PrefixOnly, deserializer.FrameReader.SchemaIdLookup);
        Assert.Null(builder.Keys);
    }

    [Fact]
    public void SetProtobufKeyDeserializer_InstallsOurDeserializerForKeys()
    {
        var builder = new InspectableConsumerBuilder<Reading, Device>(AnyConsumer);
        builder.SetProtobufKeyDeserializer().SetProtobufValueDeserializer();

        Assert.IsType<FramedProtobufDeserializer<Reading>>(builder.Keys);
        Assert.IsType<FramedProtobufDeserializer<Device>>(builder.Values);
        Assert.Same(FrameReader.Default, ((FramedProtobufDeserializer<Reading>)builder.Keys).FrameReader);
    }

    [Fact]
    public void SettingTheValueDeserializerTwice_IsConfluentsError()
    {
        var builder = new ConsumerBuilder<string, Device>(AnyConsumer).SetProtobufValueDeserializer();
        Assert.Throws<InvalidOperationException>(() => builder.SetProtobufValueDeserializer());
    }

    [Fact]
    public void SetProtobufSerializers_InstallOurSerializersWithTheOptions()
    {
        var builder = new InspectableProducerBuilder<Reading, Device>(AnyProducer);
        builder
            .SetProtobufKeySerializer(SchemaIdentifier.FromId(1))
            .SetProtobufValueSerializer(SchemaIdentifier.FromId(2), new FramedSerializerOptions { SchemaIdPlacement = SchemaIdPlacement.Header });

        FramedProtobufSerializer<Reading> keys = Assert.IsType<FramedProtobufSerializer<Reading>>(builder.Keys);
        FramedProtobufSerializer<Device> values = Assert.IsType<FramedProtobufSerializer<Device>>(builder.Values);
        Assert.Equal(SchemaIdentifier.FromId(1), keys.SchemaId);
        Assert.Equal(SchemaIdPlacement.Prefix, keys.SchemaIdPlacement);
        Assert.Equal(SchemaIdentifier.FromId(2), values.SchemaId);
        Assert.Equal(SchemaIdPlacement.Header, values.SchemaIdPlacement);
    }

    [Fact]
    public void NullBuilder_IsRejected() =>
        Assert.Throws<ArgumentNullException>(() => ConsumerBuilderExtensions.SetProtobufValueDeserializer<string, Device>(null!));
}
