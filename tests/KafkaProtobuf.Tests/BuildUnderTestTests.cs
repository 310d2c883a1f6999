using System.Reflection;
using System.Runtime.Versioning;
using KafkaProtobuf.Framing;
using Xunit;

namespace KafkaProtobuf.Tests;

/// <summary>
/// These tests run twice: here against the package's net10.0 build, and in KafkaProtobuf.Tests.NetStandard against its
/// netstandard2.0 build (same sources). This pins which build each run really executes.
/// </summary>
public class BuildUnderTestTests
{
#if NETSTANDARD_BUILD_UNDER_TEST
    private const string Expected = ".NETStandard,Version=v2.0";
#else
    private const string Expected = ".NETCoreApp,Version=v10.0";
#endif

    [Fact]
    public void TheLibraryUnderTest_IsTheExpectedBuild() =>
        Assert.Equal(Expected, typeof(FrameReader).Assembly.GetCustomAttribute<TargetFrameworkAttribute>()?.FrameworkName);
}
