using System;
using KafkaProtobuf.SchemaRegistry;
using Vectors.Nesting.V1;
using Xunit;

namespace KafkaProtobuf.Tests.Registry;

/// <summary>The registry package's options are checked as every package's are (see <c>OptionValidationTests</c>).</summary>
public sealed class RegistryOptionValidationTests
{
    [Fact]
    public void TheRegistryClient_NamesEveryValueOutOfRange_AtOnce()
    {
        ArgumentOutOfRangeException e = Assert.Throws<ArgumentOutOfRangeException>(() => new RegistryClient(new RegistryClientOptions
        {
            Urls = { "http://127.0.0.1:1" },
            RequestTimeout = TimeSpan.Zero,
            MaxRetries = -1,
            MaxReferenceDepth = 0,
        }));

        Assert.Equal("options", e.ParamName);
        Assert.StartsWith(
            "RegistryClientOptions: 3 options are wrong. RequestTimeout is 00:00:00; it must be positive. MaxRetries is -1; it must be at least 0. MaxReferenceDepth is 0; it must be at least 1.",
            e.Message,
            StringComparison.Ordinal);
    }

    [Fact]
    public void TheRegistrySerializer_SaysWhichOptionsContradict()
    {
        using var client = new RegistryClient(new RegistryClientOptions { Urls = { "http://127.0.0.1:1" } });
        ArgumentException e = Assert.Throws<ArgumentException>(() => new RegistryProtobufSerializer<Order>(client, new RegistrySerializerOptions { UseLatestVersion = true }));

        Assert.IsNotType<ArgumentOutOfRangeException>(e);
        Assert.StartsWith("RegistrySerializerOptions: UseLatestVersion writes with a registered version: turn AutoRegisterSchemas off", e.Message, StringComparison.Ordinal);
    }
}
