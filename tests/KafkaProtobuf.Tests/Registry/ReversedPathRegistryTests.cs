using System;
using System.Collections.Generic;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
using Vectors.Nesting.V1;
using Xunit;

namespace KafkaProtobuf.Tests.Registry;

/// <summary>
/// Reversed nested paths with the writer's schema from a registry over HTTP: a test producer writes them as Confluent
/// .NET 2.11.0 did (<see cref="RegistrySerializerOptions.MessageIndexOrder"/>), in the prefix and in the schema-id
/// header (GUID), keys and values; the registry-resolving deserializers read them with each order.
/// </summary>
public sealed class ReversedPathRegistryTests : IDisposable
{
    private const string Topic = "nesting";

    private static readonly IMessage[] Nested =
    [
        new Order.Types.Shipment { Carrier = "post" },
        new Customer.Types.Address { City = "Lyon" },
        new Order.Types.Shipment.Types.Label { Text = "fragile" },
        new Customer.Types.Contact.Types.Consent { Marketing = true },
        new Customer.Types.Address.Types.Geo { Latitude = 45.76 },
        new Audit.Types.Entry { Action = "login" },
    ];

    private readonly InProcessSchemaRegistry _registry = InProcessSchemaRegistry.Start();
    private readonly RegistryClient _client;

    public ReversedPathRegistryTests() => _client = new RegistryClient(_registry.Url);

    public void Dispose()
    {
        _client.Dispose();
        _registry.Dispose();
    }

    public static TheoryData<SchemaIdPlacement, MessageComponentType> Placements() => new()
    {
        { SchemaIdPlacement.Prefix, MessageComponentType.Value },
        { SchemaIdPlacement.Prefix, MessageComponentType.Key },
        { SchemaIdPlacement.Header, MessageComponentType.Value },
        { SchemaIdPlacement.Header, MessageComponentType.Key },
    };

    private (byte[] Data, SerializationContext Context) Write(IMessage message, MessageIndexOrder order, SchemaIdPlacement placement, MessageComponentType component)
    {
        var context = new SerializationContext(component, Topic, []);
        var options = new RegistrySerializerOptions { MessageIndexOrder = order, SchemaIdPlacement = placement };
        byte[] data = message switch
        {
            Order.Types.Shipment m => new RegistryProtobufSerializer<Order.Types.Shipment>(_client, options).Serialize(m, context)!,
            Customer.Types.Address m => new RegistryProtobufSerializer<Customer.Types.Address>(_client, options).Serialize(m, context)!,
            Order.Types.Shipment.Types.Label m => new RegistryProtobufSerializer<Order.Types.Shipment.Types.Label>(_client, options).Serialize(m, context)!,
            Customer.Types.Contact.Types.Consent m => new RegistryProtobufSerializer<Customer.Types.Contact.Types.Consent>(_client, options).Serialize(m, context)!,
            Customer.Types.Address.Types.Geo m => new RegistryProtobufSerializer<Customer.Types.Address.Types.Geo>(_client, options).Serialize(m, context)!,
            Audit.Types.Entry m => new RegistryProtobufSerializer<Audit.Types.Entry>(_client, options).Serialize(m, context)!,
            _ => throw new ArgumentOutOfRangeException(nameof(message)),
        };
        return (data, context);
    }

    private MultiTypeProtobufDeserializer MultiType(MessageIndexOrder order) =>
        new([NestingReflection.Descriptor], new MultiTypeDeserializerOptions { WriterSchemas = { Source = _client }, Framing = { MessageIndexOrder = order } });

    [Theory]
    [MemberData(nameof(Placements))]
    public void InnermostFirst_ReadsEveryReversedRecordAsItsOwnType_WithTheRegistrysSchema(SchemaIdPlacement placement, MessageComponentType component)
    {
        MultiTypeProtobufDeserializer innermostFirst = MultiType(MessageIndexOrder.InnermostFirst);
        MultiTypeProtobufDeserializer rootFirst = MultiType(MessageIndexOrder.RootFirst);
        var misreadByDefault = new List<string>();
        foreach (IMessage message in Nested)
        {
            (byte[] data, SerializationContext context) = Write(message, MessageIndexOrder.InnermostFirst, placement, component);
            Assert.Equal(placement == SchemaIdPlacement.Header, context.Headers.Count == 1);

            Assert.Equal(message, innermostFirst.Deserialize(data, false, context));
            if (rootFirst.TryDeserialize(data, false, context, out IMessage? other, out _) && !other!.Equals(message))
            {
                misreadByDefault.Add(message.Descriptor.Name + " as " + other.Descriptor.Name);
            }
        }

        // The warning: the four mirrored types land on each other without the option.
        Assert.Equal(["Shipment as Address", "Address as Shipment", "Label as Consent", "Consent as Label"], misreadByDefault);
    }

    [Theory]
    [MemberData(nameof(Placements))]
    public void EitherByWriterSchema_DecidesWhatTheRegistrysSchemaCan_AndRejectsTheRest(SchemaIdPlacement placement, MessageComponentType component)
    {
        MultiTypeProtobufDeserializer either = MultiType(MessageIndexOrder.EitherByWriterSchema);
        foreach (MessageIndexOrder written in new[] { MessageIndexOrder.RootFirst, MessageIndexOrder.InnermostFirst })
        {
            foreach (IMessage message in Nested)
            {
                (byte[] data, SerializationContext context) = Write(message, written, placement, component);
                bool mirrored = message is not (Customer.Types.Address.Types.Geo or Audit.Types.Entry);

                bool read = either.TryDeserialize(data, false, context, out IMessage? result, out FrameError error);

                Assert.Equal(!mirrored, read);
                if (read)
                {
                    Assert.Equal(message, result);
                }
                else
                {
                    Assert.Equal(FrameErrorCode.AmbiguousMessageIndexOrder, error.Code);
                }
            }
        }
    }

    [Fact]
    public void TypedWithTheRegistry_InnermostFirst_VerifiesTheWritersTypeByName()
    {
        (byte[] data, SerializationContext context) = Write(Nested[2], MessageIndexOrder.InnermostFirst, SchemaIdPlacement.Prefix, MessageComponentType.Value);
        FramedDeserializerOptions Options(MessageIndexOrder order) => new() { VerifyWriterType = true, WriterSchemas = { Source = _client }, Framing = { MessageIndexOrder = order } };

        Assert.Equal(Nested[2], new FramedProtobufDeserializer<Order.Types.Shipment.Types.Label>(Options(MessageIndexOrder.InnermostFirst)).Deserialize(data, false, context));
        InvalidFrameException e = Assert.Throws<InvalidFrameException>(
            () => new FramedProtobufDeserializer<Order.Types.Shipment.Types.Label>(Options(MessageIndexOrder.RootFirst)).Deserialize(data, false, context));
        Assert.Equal(FrameErrorCode.UnexpectedMessageType, e.ErrorCode);
        Assert.Contains("vectors.nesting.v1.Customer.Contact.Consent", e.Message, StringComparison.Ordinal);
    }
}
