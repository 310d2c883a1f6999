using System;
using System.Collections.Generic;
using System.Linq;
using Confluent.Kafka;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf.Framing;
using KafkaProtobuf.Tests.Support;
using Vectors.Nesting.V1;
using Xunit;

namespace KafkaProtobuf.Tests.Deserialization;

/// <summary>
/// Frames Confluent's .NET serializer 2.11.0 wrote with nested types' paths innermost first, and 2.11.1 wrote right
/// (Vectors/README.md), read with each <see cref="MessageIndexOrder"/>: the explicit order reads every 2.11.0 frame as its
/// own type; without it the multi-type deserializer misreads mirrored paths silently (the documentation's warning,
/// pinned); deciding per record never picks when both readings name a type.
/// </summary>
public class ReversedPathVectorTests
{
    private const string Old = "2.11.0";
    private const string Fixed = "2.11.1";

    public static TheoryData<string> OldVectors => Names(Old);

    public static TheoryData<string> FixedVectors => Names(Fixed);

    private static TheoryData<string> Names(string version)
    {
        var data = new TheoryData<string>();
        foreach (string name in ConfluentVector.Nesting(version).Keys)
        {
            data.Add(name);
        }

        return data;
    }

    private static MultiTypeProtobufDeserializer MultiType(MessageIndexOrder order) =>
        new([NestingReflection.Descriptor], new MultiTypeDeserializerOptions { Framing = { MessageIndexOrder = order } });

    private static FramedDeserializerOptions Typed(MessageIndexOrder order, bool verifyWriterType = true) =>
        new() { Framing = { MessageIndexOrder = order }, VerifyWriterType = verifyWriterType };

    /// <summary>The path the vector's type has in nesting.proto, top level first.</summary>
    private static int[] TruePath(ConfluentVector v) => NestingTypes.PathOf(NestingTypes.For(v.Type).Descriptor);

    private static bool IsPalindrome(int[] path) => path.SequenceEqual(Enumerable.Reverse(path));

    /// <summary>The 2.11.0 frame's type would be misread as this one read top level first (null: its path names none; itself: a palindrome).</summary>
    private static MessageDescriptor? ReadTopLevelFirst(ConfluentVector v) => NestingTypes.At(v.IndexPath);

    [Fact]
    public void BothVersions_WroteTheSame44Records_2_11_0WithEveryPathReversed()
    {
        IReadOnlyDictionary<string, ConfluentVector> old = ConfluentVector.Nesting(Old);
        IReadOnlyDictionary<string, ConfluentVector> fixedOnes = ConfluentVector.Nesting(Fixed);
        Assert.Equal(44, old.Count);
        Assert.Equal(44, fixedOnes.Count);
        foreach (ConfluentVector v in old.Values)
        {
            ConfluentVector w = fixedOnes[v.Name.Replace(Old, Fixed, StringComparison.Ordinal)];
            Assert.Equal(TruePath(v), w.IndexPath);
            Assert.Equal(Enumerable.Reverse(w.IndexPath), v.IndexPath);
            Assert.Equal(v.Payload, w.Payload);
            Assert.Equal(IsPalindrome(w.IndexPath), AfterTheIdentifier(v) == AfterTheIdentifier(w));
        }
    }

    /// <summary>The path and payload bytes, hex: each version's registry run handed out its own GUID.</summary>
    private static string AfterTheIdentifier(ConfluentVector v) => v.Placement == SchemaIdPlacement.Prefix
        ? Convert.ToHexString(v.Data.AsSpan(5))
        : Convert.ToHexString(v.Headers.Single().Value.AsSpan(17)) + "|" + Convert.ToHexString(v.Data);

    [Fact]
    public void TheVectorsCoverEveryCase_Palindromes_MirroredTypes_AndPathsWhoseReverseNamesNothing()
    {
        ConfluentVector[] old = [.. ConfluentVector.Nesting(Old).Values];
        Assert.Equal(20, old.Count(v => IsPalindrome(v.IndexPath)));
        Assert.Equal(16, old.Count(v => !IsPalindrome(v.IndexPath) && ReadTopLevelFirst(v) is not null));
        Assert.Equal(8, old.Count(v => ReadTopLevelFirst(v) is null));
        Assert.Contains(old, v => v.IndexPath.Length == 3 && !IsPalindrome(v.IndexPath)); // depth 3 as well as 2
        Assert.Contains(old, v => v.Placement == SchemaIdPlacement.Header && v.Component == MessageComponentType.Key);
    }

    [Theory]
    [MemberData(nameof(OldVectors))]
    public void InnermostFirst_MultiType_Reads2_11_0AsItsOwnType(string name)
    {
        ConfluentVector v = ConfluentVector.Nesting(Old)[name];

        IMessage? message = MultiType(MessageIndexOrder.InnermostFirst).Deserialize(v.Data, false, v.Context());

        Assert.Equal(NestingTypes.For(v.Type).ParsePayload(v.Payload), message);
    }

    [Theory]
    [MemberData(nameof(OldVectors))]
    public void InnermostFirst_TypedWithVerifyWriterType_Reads2_11_0AsItsOwnType(string name)
    {
        ConfluentVector v = ConfluentVector.Nesting(Old)[name];
        NestingTypes.ITypeCase type = NestingTypes.For(v.Type);

        Assert.Equal(type.ParsePayload(v.Payload), type.Deserialize(v.Data, v.Context(), Typed(MessageIndexOrder.InnermostFirst)));
        Assert.Equal(TruePath(v), FrameReaderFor(MessageIndexOrder.InnermostFirst).Read(v.Data, v.Context()).MessageIndexPath.ToArray());
    }

    [Theory]
    [MemberData(nameof(OldVectors))]
    public void RootFirst_TypedWithVerifyWriterType_RejectsEvery2_11_0NestedPathThatIsNoPalindrome(string name)
    {
        ConfluentVector v = ConfluentVector.Nesting(Old)[name];
        NestingTypes.ITypeCase type = NestingTypes.For(v.Type);

        bool read = type.TryDeserialize(v.Data, v.Context(), Typed(MessageIndexOrder.RootFirst), out FrameError error);

        Assert.Equal(IsPalindrome(v.IndexPath), read);
        Assert.Equal(read ? FrameErrorCode.None : FrameErrorCode.UnexpectedMessageType, error.Code);
        Assert.NotNull(type.Deserialize(v.Data, v.Context(), Typed(MessageIndexOrder.RootFirst, verifyWriterType: false))); // the path unused: parsed as T
    }

    /// <summary>The README's warning: without the option, a mirrored path lands on the other type, silently.</summary>
    [Theory]
    [MemberData(nameof(OldVectors))]
    public void RootFirst_MultiType_Misreads2_11_0MirroredPathsSilently_AndRejectsThoseWhoseReverseNamesNothing(string name)
    {
        ConfluentVector v = ConfluentVector.Nesting(Old)[name];
        MessageDescriptor? misread = ReadTopLevelFirst(v);

        bool read = MultiType(MessageIndexOrder.RootFirst).TryDeserialize(v.Data, false, v.Context(), out IMessage? message, out FrameError error);

        if (misread is null)
        {
            Assert.False(read);
            Assert.Equal(FrameErrorCode.UnknownMessageType, error.Code);
        }
        else
        {
            Assert.True(read, error.ToString());
            Assert.Equal(misread.FullName, message!.Descriptor.FullName);
            Assert.Equal(IsPalindrome(v.IndexPath), misread.FullName == v.Type);
        }
    }

    [Theory]
    [MemberData(nameof(FixedVectors))]
    public void RootFirst_Reads2_11_1AsItsOwnType_MultiTypeAndTyped(string name)
    {
        ConfluentVector v = ConfluentVector.Nesting(Fixed)[name];
        NestingTypes.ITypeCase type = NestingTypes.For(v.Type);

        Assert.Equal(type.ParsePayload(v.Payload), MultiType(MessageIndexOrder.RootFirst).Deserialize(v.Data, false, v.Context()));
        Assert.Equal(type.ParsePayload(v.Payload), type.Deserialize(v.Data, v.Context(), Typed(MessageIndexOrder.RootFirst)));
    }

    [Theory]
    [MemberData(nameof(OldVectors))]
    [MemberData(nameof(FixedVectors))]
    public void EitherByWriterSchema_ReadsWhatOnlyOneOrderNames_AndRejectsWhatBothDo_NeverGuessing(string name)
    {
        ConfluentVector v = (name.Contains(Old, StringComparison.Ordinal) ? ConfluentVector.Nesting(Old) : ConfluentVector.Nesting(Fixed))[name];
        MessageDescriptor? asWritten = NestingTypes.At(v.IndexPath);
        MessageDescriptor? reversed = NestingTypes.At([.. Enumerable.Reverse(v.IndexPath)]);
        bool ambiguous = asWritten is not null && reversed is not null && asWritten != reversed;
        NestingTypes.ITypeCase type = NestingTypes.For(v.Type);

        bool read = MultiType(MessageIndexOrder.EitherByWriterSchema).TryDeserialize(v.Data, false, v.Context(), out IMessage? message, out FrameError error);
        bool readTyped = type.TryDeserialize(v.Data, v.Context(), Typed(MessageIndexOrder.EitherByWriterSchema), out FrameError typedError);

        Assert.Equal(!ambiguous, read);
        Assert.Equal(!ambiguous, readTyped);
        if (ambiguous)
        {
            Assert.Equal(FrameErrorCode.AmbiguousMessageIndexOrder, error.Code);
            Assert.Equal(FrameErrorCode.AmbiguousMessageIndexOrder, typedError.Code);
        }
        else
        {
            Assert.Equal(type.ParsePayload(v.Payload), message);
        }
    }

    [Fact]
    public void EitherByWriterSchema_ATopicWithBothLayouts_ReadsEveryRecordWhoseOrderTheSchemaDecides()
    {
        var both = ConfluentVector.Nesting(Old).Values.Concat(ConfluentVector.Nesting(Fixed).Values).ToList();
        MultiTypeProtobufDeserializer either = MultiType(MessageIndexOrder.EitherByWriterSchema);

        var outcomes = both.Select(v => either.TryDeserialize(v.Data, false, v.Context(), out IMessage? m, out FrameError e)
            ? (m!.Descriptor.FullName == v.Type ? "right" : "WRONG " + m.Descriptor.FullName)
            : e.Code.ToString()).ToList();

        Assert.DoesNotContain(outcomes, o => o.StartsWith("WRONG", StringComparison.Ordinal));
        Assert.Equal(56, outcomes.Count(o => o == "right"));  // 20 palindromes and 8 decided, in each version
        Assert.Equal(32, outcomes.Count(o => o == nameof(FrameErrorCode.AmbiguousMessageIndexOrder)));
    }

    [Fact]
    public void Ambiguous_ThrowsTheDocumentedException_NamingBothTypesThePathOffsetAndTheSchemaId()
    {
        ConfluentVector v = ConfluentVector.Nesting(Old)["confluent-dotnet-2.11.0/prefix/value/Order.Shipment"];

        InvalidFrameException e = Assert.Throws<InvalidFrameException>(() => MultiType(MessageIndexOrder.EitherByWriterSchema).Deserialize(v.Data, false, v.Context()));

        Assert.Equal(FrameErrorCode.AmbiguousMessageIndexOrder, e.ErrorCode);
        Assert.Equal(5, e.Offset); // the path, after magic byte and id
        Assert.Equal(SchemaIdentifier.FromId(1), e.SchemaId);
        Assert.Contains("[1, 0] is vectors.nesting.v1.Customer.Address", e.Message, StringComparison.Ordinal);
        Assert.Contains("[0, 1] is vectors.nesting.v1.Order.Shipment", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void EitherByWriterSchema_WithSkippedTypes_RejectsAnAmbiguousRecordInsteadOfSkippingIt()
    {
        ConfluentVector v = ConfluentVector.Nesting(Old)["confluent-dotnet-2.11.0/prefix/value/Order.Shipment"];
        var onlyOrders = new MultiTypeProtobufDeserializer(
            [Order.Types.Shipment.Descriptor],
            new MultiTypeDeserializerOptions { Framing = { MessageIndexOrder = MessageIndexOrder.EitherByWriterSchema }, UnregisteredMessageTypes = UnregisteredMessageTypeHandling.Skip });

        Assert.False(onlyOrders.TryDeserialize(v.Data, false, v.Context(), out _, out FrameError error));
        Assert.Equal(FrameErrorCode.AmbiguousMessageIndexOrder, error.Code);
    }

    [Theory]
    [MemberData(nameof(OldVectors))]
    public void InnermostFirstSerializer_WritesConfluent2_11_0sBytes_ByteForByte(string name)
    {
        ConfluentVector v = ConfluentVector.Nesting(Old)[name];
        NestingTypes.ITypeCase type = NestingTypes.For(v.Type);
        var options = new FramedSerializerOptions { SchemaIdPlacement = v.Placement, MessageIndexOrder = MessageIndexOrder.InnermostFirst };
        var headers = new Headers();

        byte[]? data = type.Serialize(type.ParsePayload(v.Payload), v.Identifier, options, new SerializationContext(v.Component, v.Topic, headers));

        Assert.Equal(v.Data, data);
        Assert.Equal(v.Headers.Select(h => (h.Key, Convert.ToHexString(h.Value))), headers.Select(h => (h.Key, Convert.ToHexString(h.GetValueBytes()))));
    }

    private static FrameReader FrameReaderFor(MessageIndexOrder order) => new(new FramingOptions { MessageIndexOrder = order });
}
