using System;
using KafkaProtobuf.Framing;
using Xunit;
using static KafkaProtobuf.Tests.Support.Hex;

namespace KafkaProtobuf.Tests.Framing;

public class FrameWriterTests
{
    private static readonly SchemaIdentifier Id42 = SchemaIdentifier.FromId(42);

    [Fact]
    public void PathOfDepthThree_IsCountThenIndexes() =>
        Assert.Equal(Bytes("00 0000002a 06 02 04 00"), FrameWriter.ToSchemaIdAndIndexes(Id42, [1, 2, 0], MessageIndexEncoding.ZigZag));

    [Fact]
    public void NegativeSchemaId_IsWrittenAsItsBitPattern() =>
        Assert.Equal(Bytes("00 ffffffff 00"), FrameWriter.ToSchemaIdAndIndexes(SchemaIdentifier.FromId(-1), [0], MessageIndexEncoding.ZigZag));

    [Fact]
    public void EmptyPath_IsRejected() =>
        Assert.Throws<ArgumentException>(() => FrameWriter.ToSchemaIdAndIndexes(Id42, [], MessageIndexEncoding.ZigZag));

    [Fact]
    public void NegativeIndex_IsRejected() =>
        Assert.Throws<ArgumentException>(() => FrameWriter.ToSchemaIdAndIndexes(Id42, [1, -1], MessageIndexEncoding.ZigZag));

    [Fact]
    public void EmptySchemaIdentifier_IsRejected() =>
        Assert.Throws<ArgumentException>(() => FrameWriter.GetSchemaIdAndIndexesLength(default, [0], MessageIndexEncoding.ZigZag));

    [Fact]
    public void ShortDestination_IsRejectedBeforeWriting()
    {
        byte[] destination = new byte[6];
        Assert.Throws<ArgumentException>(() => FrameWriter.WriteSchemaIdAndIndexes(destination, Id42, [1], MessageIndexEncoding.ZigZag));
        Assert.All(destination, b => Assert.Equal(0, b));
    }
}
