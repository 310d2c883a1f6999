using System;
using KafkaProtobuf.Framing;
using Vectors.Nesting.V1;
using Xunit;

namespace KafkaProtobuf.Tests.Options;

/// <summary>
/// Options are checked one way in every package: every broken rule at once, each as "Name is value; it must be rule.",
/// a range problem as <see cref="ArgumentOutOfRangeException"/> and a contradiction as <see cref="ArgumentException"/>
/// from the constructor given them (the registry package's in <c>RegistryOptionValidationTests</c>, the hosted consumer's, at start, in <c>HostedConsumerRegistrationTests</c>).
/// </summary>
public sealed class OptionValidationTests
{
    [Fact]
    public void AContradiction_IsAnArgumentException_NamingItBesideTheValuesOutOfRange()
    {
        ArgumentException e = Assert.Throws<ArgumentException>(() => new FrameReader(new FramingOptions
        {
            MessageIndexPresence = MessageIndexPresence.Absent,
            MessageIndexEncoding = MessageIndexEncoding.LegacyUnsigned,
            SchemaIdLookup = (SchemaIdLookup)9,
        }));

        Assert.Equal("options", e.ParamName);
        Assert.StartsWith(
            "FramingOptions: 2 options are wrong. SchemaIdLookup is (SchemaIdLookup)9; it must be HeaderThenPrefix or PrefixOnly. MessageIndexPresence.Absent cannot be combined with MessageIndexEncoding.LegacyUnsigned",
            e.Message,
            StringComparison.Ordinal);
    }

    [Fact]
    public void OneProblem_IsSaidAlone_WithTheOptionsTypeFirst()
    {
        ArgumentOutOfRangeException serializer = Assert.Throws<ArgumentOutOfRangeException>(
            () => new FramedProtobufSerializer<Order>(SchemaIdentifier.FromId(1), new FramedSerializerOptions { SchemaIdPlacement = (SchemaIdPlacement)9 }));
        ArgumentOutOfRangeException deserializer = Assert.Throws<ArgumentOutOfRangeException>(
            () => new MultiTypeProtobufDeserializer([Order.Descriptor], new MultiTypeDeserializerOptions { UnregisteredMessageTypes = (UnregisteredMessageTypeHandling)5 }));

        Assert.StartsWith("FramedSerializerOptions: SchemaIdPlacement is (SchemaIdPlacement)9; it must be Prefix or Header.", serializer.Message, StringComparison.Ordinal);
        Assert.StartsWith("MultiTypeDeserializerOptions: UnregisteredMessageTypes is (UnregisteredMessageTypeHandling)5; it must be Reject or Skip.", deserializer.Message, StringComparison.Ordinal);
    }
}
