using System;
using System.Text;
using KafkaProtobuf.Framing;
using KafkaProtobuf.Tests.Support;
using Xunit;
using static KafkaProtobuf.Tests.Support.Hex;

namespace KafkaProtobuf.Tests.Framing;

/// <summary>
/// One test per framing edge: the error code, the offset, the location and the schema id every entry point reports.
/// Frames are written field by field: magic, id, count, indexes, payload.
/// </summary>
public class FramingEdgeTests
{
    private static readonly SchemaIdentifier Id42 = SchemaIdentifier.FromId(42);
    private static readonly Guid SchemaGuid = Guid.Parse("535dfcf3-ca23-439a-a2aa-7cf32e6ddf10");
    private static readonly SchemaIdentifier GuidId = SchemaIdentifier.FromGuid(SchemaGuid);
    private const string GuidHex = "535dfcf3ca23439aa2aa7cf32e6ddf10";

    [Fact]
    public void EmptyData_IsRejectedAtOffsetZero() =>
        Reject.Frame([], FrameErrorCode.EmptyData, 0);

    [Fact]
    public void EmptyData_WithSchemaIdHeader_IsAnEmptyPayload()
    {
        // With the id in a header the record's bytes are the bare payload: empty = all-default message.
        Assert.True(FrameReader.Default.TryRead([], Reject.Context(Confluent.Kafka.MessageComponentType.Value, Bytes("00 0000002a 00")), out Frame frame, out _));
        Assert.True(frame.Payload.IsEmpty);
        Assert.Equal(SchemaIdPlacement.Header, frame.SchemaIdPlacement);
    }

    [Fact]
    public void EmptySchemaIdHeaderValue_IsRejectedInTheHeader() =>
        Reject.Frame(Bytes("0a00"), FrameErrorCode.EmptyData, 0, schemaIdHeader: []);

    [Fact]
    public void NullSchemaIdHeaderValue_IsRejectedInTheHeader()
    {
        var headers = new Confluent.Kafka.Headers { { SchemaIdHeaderNames.Value, null } };
        var context = new Confluent.Kafka.SerializationContext(Confluent.Kafka.MessageComponentType.Value, "t", headers);
        Assert.False(FrameReader.Default.TryRead(Bytes("0a00"), context, out _, out FrameError error));
        Assert.Equal(new FrameError(FrameErrorCode.EmptyData, 0, FrameErrorLocation.SchemaIdHeader, default), error);
    }

    [Theory]
    [InlineData("00")]
    [InlineData("00 00")]
    [InlineData("00 0000")]
    [InlineData("00 000000")]
    public void MagicZero_WithFewerThanFourIdBytes_IsTruncatedSchemaId(string hex) =>
        Reject.Frame(Bytes(hex), FrameErrorCode.TruncatedSchemaId, 1);

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(8)]
    [InlineData(15)]
    public void MagicOne_WithTruncatedGuid_IsTruncatedSchemaId(int guidBytes) =>
        Reject.Frame(Bytes("01" + GuidHex[..(guidBytes * 2)]), FrameErrorCode.TruncatedSchemaId, 1);

    [Theory]
    [InlineData("02 0000002a 00")]
    [InlineData("ff 0000002a 00")]
    [InlineData("7f")]
    public void UnknownMagicByte_IsRejectedAtOffsetZero(string hex) =>
        Reject.Frame(Bytes(hex), FrameErrorCode.UnknownMagicByte, 0);

    [Fact]
    public void JsonDocument_IsUnknownMagicByte() =>
        Reject.Frame(Encoding.UTF8.GetBytes("{\"sensor_id\":\"s-1\"}"), FrameErrorCode.UnknownMagicByte, 0);

    [Fact]
    public void FiveByteFrame_WithoutMessageIndexes_IsTruncatedVarintAtFive() =>
        Reject.Frame(Bytes("00 0000002a"), FrameErrorCode.TruncatedVarint, 5, schemaId: Id42);

    [Fact]
    public void SixByteFrame_IsTheSmallestValidFrame()
    {
        Frame frame = FrameReader.Default.ReadPrefixed(Bytes("00 0000002a 00"));
        Assert.Equal(Id42, frame.SchemaId);
        Assert.True(frame.MessageIndexPath.IsFirstMessageType);
        Assert.True(frame.Payload.IsEmpty);
        Assert.Equal(6, frame.PayloadOffset);
    }

    [Fact]
    public void TruncatedCountVarint_IsRejectedAtTheVarint() =>
        Reject.Frame(Bytes("00 0000002a 82"), FrameErrorCode.TruncatedVarint, 5, schemaId: Id42);

    [Fact]
    public void TruncatedIndexVarint_IsRejectedAtTheIndex() =>
        Reject.Frame(Bytes("00 0000002a 04 02 80"), FrameErrorCode.TruncatedVarint, 7, schemaId: Id42);

    [Fact]
    public void CountVarintLongerThanFiveBytes_IsVarintTooLong() =>
        Reject.Frame(Bytes("00 0000002a 80 80 80 80 80 00 00 00 00 00"), FrameErrorCode.VarintTooLong, 5, schemaId: Id42);

    [Fact]
    public void IndexVarintLongerThanFiveBytes_IsVarintTooLong() =>
        Reject.Frame(Bytes("00 0000002a 02 ff ff ff ff ff 01"), FrameErrorCode.VarintTooLong, 6, schemaId: Id42);

    [Theory]
    [InlineData("10")]
    [InlineData("40")]
    [InlineData("7f")]
    public void FifthVarintByteWithMoreThanFourBits_IsVarintOverflow(string fifth) =>
        Reject.Frame(Bytes("00 0000002a 02 ff ff ff ff " + fifth), FrameErrorCode.VarintOverflow, 6, schemaId: Id42);

    [Fact]
    public void FifthVarintByteWithFourBits_ReadsIntMaxValue()
    {
        // zigzag 0xFFFFFFFE = int.MaxValue, the largest index there is.
        Frame frame = FrameReader.Default.ReadPrefixed(Bytes("00 0000002a 02 fe ff ff ff 0f"));
        Assert.Equal([int.MaxValue], frame.MessageIndexPath.ToArray());
    }

    [Fact]
    public void NonMinimalVarint_IsAcceptedLikeProtobufDoes()
    {
        // 82 00 is count 1 in two bytes; protobuf varints allow redundant continuation bytes.
        Frame frame = FrameReader.Default.ReadPrefixed(Bytes("00 0000002a 82 00 80 00 0a"));
        Assert.True(frame.MessageIndexPath.IsFirstMessageType);
        Assert.Equal(9, frame.PayloadOffset);
    }

    [Theory]
    [InlineData("01", 5)]          // zigzag -1
    [InlineData("03", 5)]          // zigzag -2
    [InlineData("ff ff ff ff 0f", 5)] // zigzag int.MinValue
    public void NegativeCount_IsRejected(string count, int offset) =>
        Reject.Frame(Bytes("00 0000002a " + count + " 00 00 00 00"), FrameErrorCode.NegativeMessageIndexCount, offset, schemaId: Id42);

    [Fact]
    public void CountLargerThanBytesLeft_IsRejectedBeforeReadingIndexes() =>
        Reject.Frame(Bytes("00 0000002a 06 02 04"), FrameErrorCode.MessageIndexCountExceedsData, 5, schemaId: Id42);

    [Fact]
    public void HugeCount_IsRejectedWithoutLooping() =>
        Reject.Frame(Bytes("00 0000002a fe ff ff ff 0f 00"), FrameErrorCode.MessageIndexCountExceedsData, 5, schemaId: Id42);

    [Fact]
    public void NegativeIndex_IsRejectedAtTheIndex() =>
        Reject.Frame(Bytes("00 0000002a 04 02 03 0a"), FrameErrorCode.NegativeMessageIndex, 7, schemaId: Id42);

    [Fact]
    public void CountOfZero_IsPathZero()
    {
        Frame frame = FrameReader.Default.ReadPrefixed(Bytes("00 0000002a 00 0a 00"));
        Assert.True(frame.MessageIndexPath.IsFirstMessageType);
        Assert.True(frame.MessageIndexPath.IsShortForm);
        Assert.Equal([0], frame.MessageIndexPath.ToArray());
        Assert.Equal(6, frame.PayloadOffset);
    }

    [Fact]
    public void LongFormZero_IsPathZeroToo()
    {
        Frame frame = FrameReader.Default.ReadPrefixed(Bytes("00 0000002a 02 00 0a 00"));
        Assert.True(frame.MessageIndexPath.IsFirstMessageType);
        Assert.False(frame.MessageIndexPath.IsShortForm);
        Assert.Equal([0], frame.MessageIndexPath.ToArray());
        Assert.Equal(7, frame.PayloadOffset);
        Assert.Equal(Bytes("0a 00"), frame.Payload.ToArray());
    }

    [Fact]
    public void AllOnesSchemaId_ReadsAsMinusOne()
    {
        Frame frame = FrameReader.Default.ReadPrefixed(Bytes("00 ffffffff 00"));
        Assert.Equal(-1, frame.SchemaId.Id);
        Assert.Equal(SchemaIdKind.Id, frame.SchemaId.Kind);
    }

    [Fact]
    public void GuidPrefix_IsReadInBigEndianOrder()
    {
        Frame frame = FrameReader.Default.ReadPrefixed(Bytes("01 " + GuidHex + " 00 0a 00"));
        Assert.Equal(SchemaGuid, frame.SchemaId.Guid);
        Assert.NotEqual(new Guid(Bytes(GuidHex)), frame.SchemaId.Guid); // the mixed-endian constructor would scramble it
        Assert.Equal(18, frame.PayloadOffset);
    }

    // The same faults inside a schema-id header value: offsets count from the header value's first byte.

    [Fact]
    public void Header_TruncatedGuid_IsRejectedInTheHeader() =>
        Reject.Frame(Bytes("0a00"), FrameErrorCode.TruncatedSchemaId, 1, schemaIdHeader: Bytes("01 535dfcf3ca23"));

    [Fact]
    public void Header_TruncatedId_IsRejectedInTheHeader() =>
        Reject.Frame(Bytes("0a00"), FrameErrorCode.TruncatedSchemaId, 1, schemaIdHeader: Bytes("00 0000"));

    [Fact]
    public void Header_UnknownMagicByte_IsRejectedInTheHeader() =>
        Reject.Frame(Bytes("0a00"), FrameErrorCode.UnknownMagicByte, 0, schemaIdHeader: Bytes("02 " + GuidHex + " 00"));

    [Fact]
    public void Header_WithoutMessageIndexes_IsTruncatedVarint() =>
        Reject.Frame(Bytes("0a00"), FrameErrorCode.TruncatedVarint, 17, schemaIdHeader: Bytes("01 " + GuidHex), schemaId: GuidId);

    [Fact]
    public void Header_TruncatedIndexVarint_IsRejected() =>
        Reject.Frame(Bytes("0a00"), FrameErrorCode.TruncatedVarint, 18, schemaIdHeader: Bytes("01 " + GuidHex + " 02 ff"), schemaId: GuidId);

    [Fact]
    public void Header_VarintTooLong_IsRejected() =>
        Reject.Frame(Bytes("0a00"), FrameErrorCode.VarintTooLong, 18, schemaIdHeader: Bytes("01 " + GuidHex + " 02 80 80 80 80 80 00"), schemaId: GuidId);

    [Fact]
    public void Header_VarintOverflow_IsRejected() =>
        Reject.Frame(Bytes("0a00"), FrameErrorCode.VarintOverflow, 17, schemaIdHeader: Bytes("01 " + GuidHex + " 80 80 80 80 20"), schemaId: GuidId);

    [Fact]
    public void Header_NegativeCount_IsRejected() =>
        Reject.Frame(Bytes("0a00"), FrameErrorCode.NegativeMessageIndexCount, 17, schemaIdHeader: Bytes("01 " + GuidHex + " 05 00 00"), schemaId: GuidId);

    [Fact]
    public void Header_CountLargerThanBytesLeft_IsRejected() =>
        Reject.Frame(Bytes("0a00"), FrameErrorCode.MessageIndexCountExceedsData, 5, schemaIdHeader: Bytes("00 0000002a 04 02"), schemaId: Id42);

    [Fact]
    public void Header_NegativeIndex_IsRejected() =>
        Reject.Frame(Bytes("0a00"), FrameErrorCode.NegativeMessageIndex, 6, schemaIdHeader: Bytes("00 0000002a 02 07"), schemaId: Id42);

    [Fact]
    public void Header_TrailingBytesAfterThePath_AreRejected() =>
        Reject.Frame(Bytes("0a00"), FrameErrorCode.TrailingHeaderBytes, 18, schemaIdHeader: Bytes("01 " + GuidHex + " 00 0a 00"), schemaId: GuidId);

    [Fact]
    public void Header_ForKeys_IsTheKeyHeader() =>
        Reject.Frame(Bytes("0a00"), FrameErrorCode.NegativeMessageIndexCount, 5, schemaIdHeader: Bytes("00 0000002a 01"), schemaId: Id42, component: Confluent.Kafka.MessageComponentType.Key);

    // Legacy unsigned encoding: values above int.MaxValue are negative as 32-bit signed numbers.

    private static readonly FramedDeserializerOptions Legacy = new() { Framing = { MessageIndexEncoding = MessageIndexEncoding.LegacyUnsigned } };

    [Fact]
    public void Legacy_CountAboveIntMaxValue_IsNegativeCount() =>
        Reject.Frame(Bytes("00 0000002a 80 80 80 80 08 00"), FrameErrorCode.NegativeMessageIndexCount, 5, schemaId: Id42, options: Legacy);

    [Fact]
    public void Legacy_IndexAboveIntMaxValue_IsNegativeIndex() =>
        Reject.Frame(Bytes("00 0000002a 01 ff ff ff ff 0f"), FrameErrorCode.NegativeMessageIndex, 6, schemaId: Id42, options: Legacy);

    [Fact]
    public void Legacy_CountLargerThanBytesLeft_IsRejected() =>
        Reject.Frame(Bytes("00 0000002a 03 01 02"), FrameErrorCode.MessageIndexCountExceedsData, 5, schemaId: Id42, options: Legacy);

    [Fact]
    public void Legacy_PathOne_IsZeroOneOne()
    {
        var reader = new FrameReader(new FramingOptions { MessageIndexEncoding = MessageIndexEncoding.LegacyUnsigned, SchemaIdLookup = SchemaIdLookup.HeaderThenPrefix });
        Frame frame = reader.ReadPrefixed(Bytes("00 0000002a 01 01 0a 00"));
        Assert.Equal([1], frame.MessageIndexPath.ToArray());
        Assert.Equal(7, frame.PayloadOffset);

        // Read as zigzag, the same bytes are count -1: the encodings cannot be told apart, hence the option.
        Assert.False(FrameReader.Default.TryReadPrefixed(Bytes("00 0000002a 01 01 0a 00"), out _, out FrameError error));
        Assert.Equal(FrameErrorCode.NegativeMessageIndexCount, error.Code);
    }
}
