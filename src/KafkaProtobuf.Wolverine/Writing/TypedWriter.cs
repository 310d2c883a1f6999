using System;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.SchemaRegistry;

namespace KafkaProtobuf.Wolverine.Writing;

/// <summary>One generated type's registering serializer, behind an interface the untyped envelope can call.</summary>
internal interface ITypedWriter
{
    byte[] Write(IMessage message, SerializationContext context);

    Task<byte[]> WriteAsync(IMessage message, SerializationContext context);
}

/// <inheritdoc cref="ITypedWriter"/>
internal sealed class TypedWriter<T>(RegistryClient registry, RegistrySerializerOptions options) : ITypedWriter
    where T : class, IMessage<T>, new()
{
    private readonly RegistryProtobufSerializer<T> _serializer = new(registry, options);

    public byte[] Write(IMessage message, SerializationContext context) => Written(_serializer.Serialize((T)message, context));

    public async Task<byte[]> WriteAsync(IMessage message, SerializationContext context) =>
        Written(await _serializer.SerializeAsync((T)message, context).ConfigureAwait(false));

    private static byte[] Written(byte[]? data) => data ?? throw new InvalidOperationException("A message was written as nothing.");
}
