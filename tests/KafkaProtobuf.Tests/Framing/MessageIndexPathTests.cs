using System;
using System.Collections.Generic;
using KafkaProtobuf.Framing;
using Xunit;
using static KafkaProtobuf.Tests.Support.Hex;

namespace KafkaProtobuf.Tests.Framing;

public class MessageIndexPathTests
{
    private static Frame Read(string hex) => FrameReader.Default.ReadPrefixed(Bytes(hex));

    [Fact]
    public void Enumeration_YieldsTopLevelFirst()
    {
        var seen = new List<int>();
        foreach (int index in Read("00 00000001 06 02 04 00").MessageIndexPath)
        {
            seen.Add(index);
        }

        Assert.Equal([1, 2, 0], seen);
    }

    [Fact]
    public void Indexer_ReadsEachDepth()
    {
        MessageIndexPath path = Read("00 00000001 06 02 fe ff ff ff 0f 00").MessageIndexPath;
        Assert.Equal(3, path.Count);
        Assert.Equal(1, path[0]);
        Assert.Equal(int.MaxValue, path[1]);
        Assert.Equal(0, path[2]);
    }

    [Fact]
    public void Indexer_OutsideThePath_IsArgumentOutOfRange()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => Read("00 00000001 04 02 04").MessageIndexPath[2]);
        Assert.Throws<ArgumentOutOfRangeException>(() => Read("00 00000001 00").MessageIndexPath[-1]);
    }

    [Fact]
    public void ToString_ShowsThePath()
    {
        Assert.Equal("[1, 2, 0]", Read("00 00000001 06 02 04 00").MessageIndexPath.ToString());
        Assert.Equal("[0]", Read("00 00000001 00").MessageIndexPath.ToString());
    }

    [Fact]
    public void SequenceEqual_ComparesWithoutAllocating()
    {
        MessageIndexPath path = Read("00 00000001 04 02 04").MessageIndexPath;
        Assert.True(path.SequenceEqual([1, 2]));
        Assert.False(path.SequenceEqual([1]));
        Assert.False(path.SequenceEqual([1, 3]));
        Assert.False(path.SequenceEqual([1, 2, 0]));
    }

    [Fact]
    public void CopyTo_ShortDestination_IsRejected()
    {
        byte[] frame = Bytes("00 00000001 04 02 04");
        Assert.Throws<ArgumentException>(() => FrameReader.Default.ReadPrefixed(frame).MessageIndexPath.CopyTo(new int[1]));
        Assert.Equal(2, FrameReader.Default.ReadPrefixed(frame).MessageIndexPath.CopyTo(new int[2]));
    }

    [Fact]
    public void IsFirstMessageType_IsFalseForOtherPaths()
    {
        Assert.False(Read("00 00000001 02 02").MessageIndexPath.IsFirstMessageType);
        Assert.False(Read("00 00000001 04 00 00").MessageIndexPath.IsFirstMessageType); // [0, 0] is a nested type
    }

    [Fact]
    public void Default_IsPathZero()
    {
        MessageIndexPath path = default;
        Assert.True(path.IsFirstMessageType);
        Assert.Equal([0], path.ToArray());
    }
}
