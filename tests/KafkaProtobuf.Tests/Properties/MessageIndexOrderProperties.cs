using System;
using System.Linq;
using CsCheck;
using KafkaProtobuf.Framing;
using KafkaProtobuf.Tests.Support;
using Xunit;

namespace KafkaProtobuf.Tests.Properties;

/// <summary>
/// <see cref="MessageIndexOrder.InnermostFirst"/> is the exact inverse of a writer that puts the innermost index first
/// (Confluent .NET 2.10.1 to 2.11.0), at every depth, in both encodings and placements: the path comes back top level first.
/// The writer here is the independent test encoder fed the reversed path, which is what those versions did.
/// </summary>
public class MessageIndexOrderProperties
{
    private const int Iterations = 10_000;

    private static readonly Gen<FrameCase> DeepCases = Gen.Select(
        FrameCase.All,
        Gen.Int[1, 12].SelectMany(depth => FrameCase.Indexes.Array[depth]),
        (c, path) => c with { Path = path });

    private static byte[] WrittenInnermostFirst(FrameCase c) =>
        ReferenceFraming.EncodeSchemaIdAndIndexes(c.SchemaId, [.. Enumerable.Reverse(c.Path)], c.Legacy);

    private static FrameReader Reader(FrameCase c, MessageIndexOrder order) =>
        new(new FramingOptions { MessageIndexEncoding = c.Encoding, MessageIndexOrder = order });

    private static Frame Read(FrameCase c, MessageIndexOrder order, byte[] schemaIdAndIndexes, out byte[] data)
    {
        data = c.Placement == SchemaIdPlacement.Prefix ? [.. schemaIdAndIndexes, .. c.Payload] : c.Payload;
        byte[]? header = c.Placement == SchemaIdPlacement.Header ? schemaIdAndIndexes : null;
        Assert.True(Reader(c, order).TryRead(data, FrameCase.Context(c.Component, header), out Frame frame, out FrameError error), error.ToString());
        return frame;
    }

    [Fact]
    public void InnermostFirst_ReadsBackThePathTopLevelFirst_AtEveryDepth() =>
        DeepCases.Sample(
            c =>
            {
                Frame frame = Read(c, MessageIndexOrder.InnermostFirst, WrittenInnermostFirst(c), out byte[] data);
                Assert.Equal(c.Path, frame.MessageIndexPath.ToArray());
                Assert.True(frame.MessageIndexPath.SequenceEqual(c.Path));
                Assert.Equal(c.Path[0], frame.MessageIndexPath[0]);
                Assert.Equal(c.Path[^1], frame.MessageIndexPath[c.Path.Length - 1]);
                Assert.Equal(c.Payload, frame.Payload.ToArray());
                Assert.Equal(data.Length - c.Payload.Length, frame.PayloadOffset);
            },
            iter: Iterations);

    [Fact]
    public void RootFirst_ReadsTheSameBytesAsTheReversedPath() =>
        DeepCases.Sample(
            c =>
            {
                Frame frame = Read(c, MessageIndexOrder.RootFirst, WrittenInnermostFirst(c), out _);
                Assert.Equal(Enumerable.Reverse(c.Path), frame.MessageIndexPath.ToArray());
            },
            iter: Iterations);

    [Fact]
    public void TheTwoOrders_ReadTheSamePath_ExactlyWhenItIsAPalindrome() =>
        DeepCases.Sample(
            c =>
            {
                byte[] written = ReferenceFraming.EncodeSchemaIdAndIndexes(c.SchemaId, c.Path, c.Legacy);
                int[] rootFirst = Read(c, MessageIndexOrder.RootFirst, written, out _).MessageIndexPath.ToArray();
                int[] innermostFirst = Read(c, MessageIndexOrder.InnermostFirst, written, out _).MessageIndexPath.ToArray();
                Assert.Equal(c.Path.SequenceEqual(Enumerable.Reverse(c.Path)), rootFirst.SequenceEqual(innermostFirst));
            },
            iter: Iterations);
}
