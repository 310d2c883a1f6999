using System.Reflection;
using System.Runtime.Versioning;
using KafkaProtobuf.Framing;
using Xunit;

namespace KafkaProtobuf.Tests;

/// <summary>
/// These tests run three times: here against the package's net10.0 build, in KafkaProtobuf.Tests.NetStandard against
/// its netstandard2.0 build, and in KafkaProtobuf.Tests.OldestSupported against its net8.0 build on the .NET 8 runtime
/// with the dependency floors (same sources). This pins which build, runtime and dependencies each run really executes.
/// </summary>
public class BuildUnderTestTests
{
#if NETSTANDARD_BUILD_UNDER_TEST
    private const string Expected = ".NETStandard,Version=v2.0";
#elif OLDEST_SUPPORTED_UNDER_TEST
    private const string Expected = ".NETCoreApp,Version=v8.0";
#else
    private const string Expected = ".NETCoreApp,Version=v10.0";
#endif

    [Fact]
    public void TheLibraryUnderTest_IsTheExpectedBuild() =>
        Assert.Equal(Expected, typeof(FrameReader).Assembly.GetCustomAttribute<TargetFrameworkAttribute>()?.FrameworkName);

#if OLDEST_SUPPORTED_UNDER_TEST
    [Fact]
    public void TheRuntime_IsDotNet8_NotRolledForward() => Assert.Equal(8, System.Environment.Version.Major);

    [Theory]
    [InlineData("KafkaProtobuf.SchemaRegistry")]
    [InlineData("KafkaProtobuf.Hosting")]
    [InlineData("KafkaProtobuf.Testing")]
    public void ThePackagesNet8Builds_AreTheOnesLoaded(string assembly) =>
        Assert.Equal(Expected, Assembly.Load(assembly).GetCustomAttribute<TargetFrameworkAttribute>()?.FrameworkName);

    [Fact]
    public void TheDependencies_AreTheDeclaredFloors()
    {
        // The floors of Directory.Packages.props, the versions every package's nuspec asks for at least.
        Assert.Equal("2.15.1", Informational(typeof(Confluent.Kafka.IConsumer<,>).Assembly));
        Assert.StartsWith("3.19.3", Informational(typeof(Google.Protobuf.MessageParser).Assembly), System.StringComparison.Ordinal);
    }

    private static string? Informational(Assembly assembly) =>
        assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion.Split('+')[0];
#endif
}
