using System;
using System.Collections.Generic;
using System.Linq;
using Confluent.Kafka;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using Vectors.Nesting.V1;

namespace KafkaProtobuf.Tests.Support;

/// <summary>The generated nesting.proto types (mirrored nested paths), reachable by full name so vector tests can stay generic.</summary>
public static class NestingTypes
{
    private static readonly Dictionary<string, ITypeCase> Cases = new ITypeCase[]
    {
        new TypeCase<Order>(),
        new TypeCase<Order.Types.Line>(),
        new TypeCase<Order.Types.Shipment>(),
        new TypeCase<Order.Types.Shipment.Types.Parcel>(),
        new TypeCase<Order.Types.Shipment.Types.Label>(),
        new TypeCase<Customer>(),
        new TypeCase<Customer.Types.Address>(),
        new TypeCase<Customer.Types.Address.Types.Geo>(),
        new TypeCase<Customer.Types.Contact>(),
        new TypeCase<Customer.Types.Contact.Types.Consent>(),
        new TypeCase<Audit.Types.Entry>(),
    }.ToDictionary(c => c.Descriptor.FullName);

    public static ITypeCase For(string fullName) => Cases[fullName];

    /// <summary>The message type at <paramref name="path"/> in nesting.proto (top level first), or null.</summary>
    public static MessageDescriptor? At(IReadOnlyList<int> path)
    {
        IList<MessageDescriptor> level = NestingReflection.Descriptor.MessageTypes;
        MessageDescriptor? type = null;
        foreach (int index in path)
        {
            if (index >= level.Count)
            {
                return null;
            }

            type = level[index];
            level = type.NestedTypes;
        }

        return type;
    }

    /// <summary>The path of <paramref name="type"/> in nesting.proto, top level first (nesting.proto declares no map fields).</summary>
    public static int[] PathOf(MessageDescriptor type)
    {
        var path = new List<int>();
        for (MessageDescriptor? t = type; t is not null; t = t.ContainingType)
        {
            path.Insert(0, t.Index);
        }

        return [.. path];
    }

    public interface ITypeCase
    {
        MessageDescriptor Descriptor { get; }

        IMessage? Deserialize(ReadOnlySpan<byte> data, SerializationContext context, FramedDeserializerOptions options);

        bool TryDeserialize(ReadOnlySpan<byte> data, SerializationContext context, FramedDeserializerOptions options, out FrameError frameError);

        IMessage ParsePayload(byte[] payload);

        byte[]? Serialize(IMessage message, SchemaIdentifier schemaId, FramedSerializerOptions options, SerializationContext context);
    }

    private sealed class TypeCase<T> : ITypeCase
        where T : class, IMessage<T>, new()
    {
        public MessageDescriptor Descriptor { get; } = new T().Descriptor;

        public IMessage? Deserialize(ReadOnlySpan<byte> data, SerializationContext context, FramedDeserializerOptions options) =>
            new FramedProtobufDeserializer<T>(options).Deserialize(data, isNull: false, context);

        public bool TryDeserialize(ReadOnlySpan<byte> data, SerializationContext context, FramedDeserializerOptions options, out FrameError frameError) =>
            new FramedProtobufDeserializer<T>(options).TryDeserialize(data, isNull: false, context, out _, out frameError);

        public IMessage ParsePayload(byte[] payload) => Descriptor.Parser.ParseFrom(payload);

        public byte[]? Serialize(IMessage message, SchemaIdentifier schemaId, FramedSerializerOptions options, SerializationContext context) =>
            new FramedProtobufSerializer<T>(schemaId, options).Serialize((T)message, context);
    }
}
