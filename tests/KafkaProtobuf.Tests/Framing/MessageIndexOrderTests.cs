using System;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.Framing;
using Vectors.Nesting.V1;
using Xunit;

namespace KafkaProtobuf.Tests.Framing;

/// <summary>How <see cref="MessageIndexOrder"/> combines with the other framing options, and where it is refused.</summary>
public class MessageIndexOrderTests
{
    private static readonly SerializationContext Value = new(MessageComponentType.Value, "nesting", []);

    [Fact]
    public void TheDefault_IsRootFirst_AndTheSharedReaderReadsIt()
    {
        Assert.Equal(MessageIndexOrder.RootFirst, new FramingOptions().MessageIndexOrder);
        Assert.Equal(MessageIndexOrder.RootFirst, FrameReader.Default.MessageIndexOrder);
        Assert.Equal(MessageIndexOrder.RootFirst, new FramedSerializerOptions().MessageIndexOrder);
    }

    [Fact]
    public void InnermostFirst_WithLegacyUnsigned_ReadsUnsignedIndexesBackToFront()
    {
        // [1, 0, 2] written innermost first in unsigned varints: count 3, then 2, 0, 1. No known writer did this
        // (those versions wrote zigzag), but the order applies to decoded indexes, so it combines with either encoding.
        byte[] data = [0x00, 0, 0, 0, 9, 0x03, 0x02, 0x00, 0x01, 0x0A, 0x00];
        var reader = new FrameReader(new FramingOptions { MessageIndexEncoding = MessageIndexEncoding.LegacyUnsigned, MessageIndexOrder = MessageIndexOrder.InnermostFirst });

        Frame frame = reader.ReadPrefixed(data);

        Assert.Equal([1, 0, 2], frame.MessageIndexPath.ToArray());
        Assert.Equal(9, frame.PayloadOffset);
    }

    [Fact]
    public void InnermostFirst_ReadsMultiByteIndexesBackToFront()
    {
        // [300, 1, 70000] innermost first, zigzag: 70000 -> e0 c5 08, 1 -> 02, 300 -> d8 04.
        byte[] header = [0x00, 0, 0, 0, 1, 0x06, 0xE0, 0xC5, 0x08, 0x02, 0xD8, 0x04];
        var reader = new FrameReader(new FramingOptions { MessageIndexOrder = MessageIndexOrder.InnermostFirst });

        Frame frame = reader.ReadWithSchemaIdHeader([0x08, 0x01], header);

        Assert.Equal([300, 1, 70000], frame.MessageIndexPath.ToArray());
        Assert.Equal(70000, frame.MessageIndexPath[2]);
        Assert.Equal("[300, 1, 70000]", frame.MessageIndexPath.ToString());
    }

    [Fact]
    public void InnermostFirst_TheShortFormZero_IsStillTheFirstMessageType()
    {
        var reader = new FrameReader(new FramingOptions { MessageIndexOrder = MessageIndexOrder.InnermostFirst });

        Frame frame = reader.ReadPrefixed([0x00, 0, 0, 0, 1, 0x00, 0x0A, 0x00]);

        Assert.True(frame.MessageIndexPath.IsFirstMessageType);
        Assert.Equal([0], frame.MessageIndexPath.ToArray());
    }

    [Fact]
    public void AFrameReader_RefusesEitherByWriterSchema_ItHasNoSchemaToDecideWith()
    {
        ArgumentException e = Assert.Throws<ArgumentException>(() => new FrameReader(new FramingOptions { MessageIndexOrder = MessageIndexOrder.EitherByWriterSchema }));
        Assert.Contains("deserializer", e.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(MessageIndexOrder.InnermostFirst)]
    [InlineData(MessageIndexOrder.EitherByWriterSchema)]
    public void AbsentIndexes_CannotBeOrdered_ReaderAndDeserializersSayWhy(MessageIndexOrder order)
    {
        var framing = new FramingOptions { MessageIndexPresence = MessageIndexPresence.Absent, MessageIndexOrder = order };
        var typed = new FramedDeserializerOptions { Framing = { MessageIndexPresence = MessageIndexPresence.Absent, MessageIndexOrder = order } };
        var multi = new MultiTypeDeserializerOptions { Framing = { MessageIndexPresence = MessageIndexPresence.Absent, MessageIndexOrder = order } };

        if (order != MessageIndexOrder.EitherByWriterSchema)
        {
            Assert.Contains("no order", Assert.Throws<ArgumentException>(() => new FrameReader(framing)).Message, StringComparison.Ordinal);
        }

        Assert.Contains("no order", Assert.Throws<ArgumentException>(() => new FramedProtobufDeserializer<Order>(typed)).Message, StringComparison.Ordinal);
        Assert.Contains("no order", Assert.Throws<ArgumentException>(() => new MultiTypeProtobufDeserializer([NestingReflection.Descriptor], multi)).Message, StringComparison.Ordinal);
    }

    [Fact]
    public void AnUndefinedOrder_IsRefusedEverywhere()
    {
        const MessageIndexOrder undefined = (MessageIndexOrder)7;

        Assert.Throws<ArgumentOutOfRangeException>(() => new FrameReader(new FramingOptions { MessageIndexOrder = undefined }));
        Assert.Throws<ArgumentOutOfRangeException>(() => new FramedProtobufDeserializer<Order>(new FramedDeserializerOptions { Framing = { MessageIndexOrder = undefined } }));
        Assert.Throws<ArgumentOutOfRangeException>(() => new FramedProtobufSerializer<Order>(SchemaIdentifier.FromId(1), new FramedSerializerOptions { MessageIndexOrder = undefined }));
    }

    [Fact]
    public void TheSerializer_RefusesEitherByWriterSchema_AWriterPicksOneOrder()
    {
        ArgumentOutOfRangeException e = Assert.Throws<ArgumentOutOfRangeException>(
            () => new FramedProtobufSerializer<Order>(SchemaIdentifier.FromId(1), new FramedSerializerOptions { MessageIndexOrder = MessageIndexOrder.EitherByWriterSchema }));
        Assert.Contains("MessageIndexOrder is MessageIndexOrder.EitherByWriterSchema; it must be RootFirst or InnermostFirst.", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void TheSerializer_InnermostFirst_KeepsReportingThePathTopLevelFirst_AndWritesItReversed()
    {
        var serializer = new FramedProtobufSerializer<Order.Types.Shipment.Types.Label>(
            SchemaIdentifier.FromId(3), new FramedSerializerOptions { MessageIndexOrder = MessageIndexOrder.InnermostFirst });

        byte[] data = serializer.Serialize(new Order.Types.Shipment.Types.Label { Text = "x" }, Value)!;

        Assert.Equal([0, 1, 1], serializer.MessageIndexPath);
        Assert.Equal(MessageIndexOrder.InnermostFirst, serializer.MessageIndexOrder);
        Assert.Equal(new byte[] { 0x00, 0, 0, 0, 3, 0x06, 0x02, 0x02, 0x00 }, data[..9]);
        Assert.Equal([1, 1, 0], FrameReader.Default.Read(data, Value).MessageIndexPath.ToArray());
    }

    [Fact]
    public void TypedWithoutVerifyWriterType_ParsesWhateverTheOrder_ThePathIsUnused()
    {
        var label = new Order.Types.Shipment.Types.Label { Text = "fragile" };
        byte[] reversed = new FramedProtobufSerializer<Order.Types.Shipment.Types.Label>(
            SchemaIdentifier.FromId(1), new FramedSerializerOptions { MessageIndexOrder = MessageIndexOrder.InnermostFirst }).Serialize(label, Value)!;

        foreach (MessageIndexOrder order in Enum.GetValues<MessageIndexOrder>())
        {
            var options = new FramedDeserializerOptions { Framing = { MessageIndexOrder = order } };
            Assert.Equal(label, new FramedProtobufDeserializer<Order.Types.Shipment.Types.Label>(options).Deserialize(reversed, false, Value));
        }
    }

    [Fact]
    public void EitherByWriterSchema_TypedWithVerifyWriterType_DecidesInTheTypesOwnFile_WithoutTheWritersFile()
    {
        // Geo [1, 0, 0] written innermost first is [0, 0, 1], which names nothing in nesting.proto: only one reading fits.
        var geo = new Customer.Types.Address.Types.Geo { Latitude = 1 };
        var options = new FramedDeserializerOptions { Framing = { MessageIndexOrder = MessageIndexOrder.EitherByWriterSchema }, VerifyWriterType = true };
        var deserializer = new FramedProtobufDeserializer<Customer.Types.Address.Types.Geo>(options);
        foreach (MessageIndexOrder written in new[] { MessageIndexOrder.RootFirst, MessageIndexOrder.InnermostFirst })
        {
            byte[] data = new FramedProtobufSerializer<Customer.Types.Address.Types.Geo>(SchemaIdentifier.FromId(1), new FramedSerializerOptions { MessageIndexOrder = written }).Serialize(geo, Value)!;
            Assert.Equal(geo, deserializer.Deserialize(data, false, Value));
        }

        // Consent [1, 1, 0] read innermost first is Label [0, 1, 1]: a Label record is another type, whichever order it was written in.
        byte[] label = new FramedProtobufSerializer<Order.Types.Shipment.Types.Label>(SchemaIdentifier.FromId(1)).Serialize(new Order.Types.Shipment.Types.Label(), Value)!;
        var consents = new FramedProtobufDeserializer<Customer.Types.Contact.Types.Consent>(options);
        Assert.False(consents.TryDeserialize(label, false, Value, out _, out FrameError error));
        Assert.Equal(FrameErrorCode.AmbiguousMessageIndexOrder, error.Code);
    }

    private static byte[] Framed(int[] path, IMessage message) =>
        [.. FrameWriter.ToSchemaIdAndIndexes(SchemaIdentifier.FromId(1), path, MessageIndexEncoding.ZigZag), .. message.ToByteArray()];

    [Fact]
    public void EitherByWriterSchema_APathNamingNothingEitherWay_IsUnknownMessageType()
    {
        var multi = new MultiTypeProtobufDeserializer([NestingReflection.Descriptor], new MultiTypeDeserializerOptions { Framing = { MessageIndexOrder = MessageIndexOrder.EitherByWriterSchema } });

        Assert.False(multi.TryDeserialize(Framed([2, 5], new Order()), false, Value, out _, out FrameError error));
        Assert.Equal(FrameErrorCode.UnknownMessageType, error.Code);
    }
}
