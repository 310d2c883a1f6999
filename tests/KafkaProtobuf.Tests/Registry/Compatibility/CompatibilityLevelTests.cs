using System;
using System.Linq;
using KafkaProtobuf.SchemaRegistry;
using Xunit;
using static KafkaProtobuf.Tests.Registry.Compatibility.ProtoFiles;

namespace KafkaProtobuf.Tests.Registry.Compatibility;

/// <summary>Which earlier versions each level compares with the new schema, and in which direction.</summary>
public sealed class CompatibilityLevelTests
{
    // Version 1 wrote b as a string, version 2 dropped it, the new schema brings b back as a number: only version 1 objects.
    private static readonly ProtoSchema[] BDroppedThenRetyped =
    [
        Schema("message M { int32 a = 1; string b = 2; }"),
        Schema("message M { int32 a = 1; }"),
    ];

    private static readonly ProtoSchema NumberB = Schema("message M { int32 a = 1; int32 b = 2; }");

    [Theory]
    [InlineData(CompatibilityLevel.None, true)]
    [InlineData(CompatibilityLevel.Backward, true)]
    [InlineData(CompatibilityLevel.Forward, true)]
    [InlineData(CompatibilityLevel.Full, true)]
    [InlineData(CompatibilityLevel.BackwardTransitive, false)]
    [InlineData(CompatibilityLevel.ForwardTransitive, false)]
    [InlineData(CompatibilityLevel.FullTransitive, false)]
    public void OnlyTransitiveLevels_SeeAVersionBeforeTheLatest(CompatibilityLevel level, bool compatible)
    {
        CompatibilityVerdict verdict = ProtobufCompatibility.Check(NumberB, BDroppedThenRetyped, level);

        Assert.Equal(compatible, verdict.IsCompatible);
        Assert.Equal(level, verdict.Level);
        Assert.Equal(compatible ? [] : ["FIELD_SCALAR_KIND_CHANGED #/M/2"], verdict.Incompatibilities.Select(d => d.ToString()));
        Assert.All(verdict.Comparisons.Where(c => !c.IsCompatible), c => Assert.Equal(0, c.EarlierVersion));
    }

    [Theory]
    [InlineData(CompatibilityLevel.Backward, false, true)]
    [InlineData(CompatibilityLevel.Forward, true, false)]
    [InlineData(CompatibilityLevel.Full, false, false)]
    public void BackwardReadsTheOldWithTheNew_ForwardTheNewWithTheOld(CompatibilityLevel level, bool intoOneofCompatible, bool outOfOneofCompatible)
    {
        ProtoSchema apart = Schema("message M { int32 a = 1; int32 b = 2; }");
        ProtoSchema together = Schema("message M { oneof choice { int32 a = 1; int32 b = 2; } }");

        // Into a oneof: records that set both lose one when read with the new schema (backward); the other way round nothing is lost.
        Assert.Equal(intoOneofCompatible, ProtobufCompatibility.Check(together, [apart], level).IsCompatible);
        Assert.Equal(outOfOneofCompatible, ProtobufCompatibility.Check(apart, [together], level).IsCompatible);
    }

    [Fact]
    public void TheComparisonsMade_AreNamedByVersionAndDirection_LatestFirst()
    {
        CompatibilityVerdict verdict = ProtobufCompatibility.Check(NumberB, BDroppedThenRetyped, CompatibilityLevel.FullTransitive);

        Assert.Equal(
            [(1, CompatibilityDirection.Backward), (1, CompatibilityDirection.Forward), (0, CompatibilityDirection.Backward), (0, CompatibilityDirection.Forward)],
            verdict.Comparisons.Select(c => (c.EarlierVersion, c.Direction)));
        Assert.Equal(["FIELD_ADDED #/M/2"], verdict.Comparisons[0].Differences.Select(d => d.ToString()));
        Assert.Equal(["FIELD_REMOVED #/M/2"], verdict.Comparisons[1].Differences.Select(d => d.ToString()));
    }

    [Fact]
    public void AFirstVersion_IsCompatibleAtEveryLevel()
    {
        Assert.All(Enum.GetValues<CompatibilityLevel>(), level => Assert.True(ProtobufCompatibility.Check(NumberB, [], level).IsCompatible));
        Assert.Throws<ArgumentOutOfRangeException>(() => ProtobufCompatibility.Check(NumberB, BDroppedThenRetyped, (CompatibilityLevel)42));
    }
}
