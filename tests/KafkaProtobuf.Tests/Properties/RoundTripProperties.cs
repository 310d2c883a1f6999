using System;
using CsCheck;
using KafkaProtobuf.Framing;
using KafkaProtobuf.Tests.Support;
using Xunit;

namespace KafkaProtobuf.Tests.Properties;

/// <summary>
/// Random ids, GUIDs, paths (depth 1 to 5, indexes up to int.MaxValue), both encodings, both placements and random
/// payloads. CsCheck prints the seed of any failing case; rerun one with <c>seed:</c>.
/// </summary>
public class RoundTripProperties
{
    private const int Iterations = 10_000;

    [Fact]
    public void WriteThenRead_GivesBackExactlyWhatWasWritten() =>
        FrameCase.All.Sample(
            c =>
            {
                Assert.True(
                    c.Reader.TryRead(c.Data, FrameCase.Context(c.Component, c.Header), out Frame frame, out FrameError error),
                    error.ToString());
                Assert.Equal(c.SchemaId, frame.SchemaId);
                Assert.Equal(c.Placement, frame.SchemaIdPlacement);
                Assert.True(frame.MessageIndexPath.SequenceEqual(c.Path));
                Assert.Equal(c.Path, frame.MessageIndexPath.ToArray());
                Assert.Equal(c.Path.Length == 1 && c.Path[0] == 0, frame.MessageIndexPath.IsFirstMessageType);
                Assert.Equal(c.Payload, frame.Payload.ToArray());
                Assert.Equal(c.Data.Length - c.Payload.Length, frame.PayloadOffset);
            },
            iter: Iterations);

    [Fact]
    public void Writer_AgreesWithTheIndependentTestEncoder() =>
        FrameCase.All.Sample(
            c =>
            {
                byte[] expected = ReferenceFraming.EncodeSchemaIdAndIndexes(c.SchemaId, c.Path, c.Legacy);
                Assert.Equal(expected, c.SchemaIdAndIndexes);
                Assert.Equal(expected.Length, FrameWriter.GetSchemaIdAndIndexesLength(c.SchemaId, c.Path, c.Encoding));
            },
            iter: Iterations);

    [Fact]
    public void Reader_AgreesWithTheIndependentTestDecoderOnValidFrames() =>
        FrameCase.All.Sample(
            c =>
            {
                // The independent decoder reads the frame as written, and the package's reader reads it the same way.
                ReferenceFraming.Verdict verdict = ReferenceFraming.Decode(c.Data, c.Header, c.Legacy);
                Assert.Equal(FrameErrorCode.None, verdict.Error);
                Assert.Equal(c.SchemaId, verdict.SchemaId);
                Assert.Equal(c.Path, verdict.Path);
                Assert.True(c.Reader.TryRead(c.Data, FrameCase.Context(c.Component, c.Header), out Frame frame, out FrameError error), error.ToString());
                Assert.Equal(verdict.SchemaId, frame.SchemaId);
                Assert.Equal(verdict.Path, frame.MessageIndexPath.ToArray());
            },
            iter: Iterations);

    [Fact]
    public void WriterInSpan_WritesTheSameBytesAsToArray() =>
        FrameCase.All.Sample(
            c =>
            {
                byte[] expected = c.SchemaIdAndIndexes;
                Span<byte> buffer = stackalloc byte[64];
                int written = FrameWriter.WriteSchemaIdAndIndexes(buffer, c.SchemaId, c.Path, c.Encoding);
                Assert.Equal(expected, buffer[..written].ToArray());
            },
            iter: Iterations);
}
