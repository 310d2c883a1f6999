using System;
using System.Collections.Generic;
using KafkaProtobuf.SchemaRegistry;
using Vectors.Telemetry.V1;
using Xunit;

namespace KafkaProtobuf.Tests.PublicApi;

/// <summary>
/// Lists the packages hand out are views: cast back to a list or an array, they refuse a change, so no caller can alter
/// what the package reads (one write to <see cref="CompatibilityLevelNames.All"/>'s array would have corrupted every
/// later parse in the process).
/// </summary>
public sealed class ReadOnlyListTests
{
    public static TheoryData<string> Lists() => ["CompatibilityLevelNames.All", "FramedProtobufSerializer.MessageIndexPath", "MultiTypeProtobufDeserializer.MessageTypes"];

    [Theory]
    [MemberData(nameof(Lists))]
    public void AListHandedOut_CannotBeChanged_ByACastBack(string list)
    {
        object handedOut = list switch
        {
            "CompatibilityLevelNames.All" => CompatibilityLevelNames.All,
            "FramedProtobufSerializer.MessageIndexPath" => new FramedProtobufSerializer<Device>(SchemaIdentifier.FromId(1)).MessageIndexPath,
            _ => new MultiTypeProtobufDeserializer([TelemetryReflection.Descriptor], null).MessageTypes,
        };

        Assert.IsNotType<Array>(handedOut, exactMatch: false);
        System.Collections.IList asList = Assert.IsAssignableFrom<System.Collections.IList>(handedOut);
        Assert.True(asList.IsReadOnly);
        object? first = asList[0];
        Assert.Throws<NotSupportedException>(() => asList[0] = first);
    }

    [Fact]
    public void TheLevelNames_StillParse_AfterAnAttemptedChange()
    {
        var names = (IList<string>)CompatibilityLevelNames.All;
        Assert.Throws<NotSupportedException>(() => names[1] = "NONE");
        Assert.True(CompatibilityLevelNames.TryParse("backward", out CompatibilityLevel level));
        Assert.Equal(CompatibilityLevel.Backward, level);
    }
}
