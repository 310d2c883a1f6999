using System;
using Xunit;

namespace KafkaProtobuf.Tests.Framing;

/// <summary>The one table of what each error code means: a new code fails here until it has its row.</summary>
public class FrameErrorCodesTests
{
    [Fact]
    public void EveryCode_HasAStage_AndADescriptionOfItsOwn()
    {
        foreach (FrameErrorCode code in Enum.GetValues<FrameErrorCode>())
        {
            FrameErrorCodes.StageOf(code); // throws for a code the table lacks
            string description = FrameErrorCodes.Describe(code, FrameErrorLocation.RecordData);
            Assert.DoesNotContain("unknown error", description, StringComparison.Ordinal);
        }

        Assert.Throws<ArgumentOutOfRangeException>(() => FrameErrorCodes.StageOf((FrameErrorCode)99));
        Assert.Equal(FrameErrorCodes.Stage.Payload, FrameErrorCodes.StageOf(FrameErrorCode.InvalidPayload));
        Assert.True(FrameErrorCodes.IsFoundAfterThePath(FrameErrorCode.UnknownMessageType));
        Assert.False(FrameErrorCodes.IsFoundAfterThePath(FrameErrorCode.NegativeMessageIndex));
    }
}
