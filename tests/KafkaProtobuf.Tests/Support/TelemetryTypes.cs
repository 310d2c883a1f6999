using System;
using System.Collections.Generic;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.Framing;
using Vectors.Telemetry.V1;

namespace KafkaProtobuf.Tests.Support;

/// <summary>The generated telemetry.proto types, reachable by full name so vector tests can stay generic.</summary>
public static class TelemetryTypes
{
    private static readonly Dictionary<string, ITypeCase> Cases = new()
    {
        [Reading.Descriptor.FullName] = new TypeCase<Reading>(),
        [Device.Descriptor.FullName] = new TypeCase<Device>(),
        [Device.Types.Location.Descriptor.FullName] = new TypeCase<Device.Types.Location>(),
        [Device.Types.Firmware.Descriptor.FullName] = new TypeCase<Device.Types.Firmware>(),
        [Device.Types.Firmware.Types.Signature.Descriptor.FullName] = new TypeCase<Device.Types.Firmware.Types.Signature>(),
        [Alert.Descriptor.FullName] = new TypeCase<Alert>(),
    };

    public static ITypeCase For(string fullName) => Cases[fullName];

    public interface ITypeCase
    {
        IMessage? Deserialize(ReadOnlySpan<byte> data, SerializationContext context, FramedDeserializerOptions? options = null);

        Task<IMessage?> DeserializeAsync(ReadOnlyMemory<byte> data, SerializationContext context);

        IMessage ParsePayload(byte[] payload);

        byte[]? Serialize(IMessage message, SchemaIdentifier schemaId, FramedSerializerOptions options, SerializationContext context);

        IReadOnlyList<int> SerializerPath(SchemaIdentifier schemaId);
    }

    private sealed class TypeCase<T> : ITypeCase
        where T : class, IMessage<T>, new()
    {
        private readonly FramedProtobufDeserializer<T> _deserializer = new();

        public IMessage? Deserialize(ReadOnlySpan<byte> data, SerializationContext context, FramedDeserializerOptions? options) =>
            (options is null ? _deserializer : new FramedProtobufDeserializer<T>(options)).Deserialize(data, isNull: false, context);

        public async Task<IMessage?> DeserializeAsync(ReadOnlyMemory<byte> data, SerializationContext context) =>
            await _deserializer.DeserializeAsync(data, isNull: false, context);

        public IMessage ParsePayload(byte[] payload) => new T().Descriptor.Parser.ParseFrom(payload);

        public byte[]? Serialize(IMessage message, SchemaIdentifier schemaId, FramedSerializerOptions options, SerializationContext context) =>
            new FramedProtobufSerializer<T>(schemaId, options).Serialize((T)message, context);

        public IReadOnlyList<int> SerializerPath(SchemaIdentifier schemaId) => new FramedProtobufSerializer<T>(schemaId).MessageIndexPath;
    }
}
