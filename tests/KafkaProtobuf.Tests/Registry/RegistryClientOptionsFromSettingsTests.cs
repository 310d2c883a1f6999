using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using KafkaProtobuf.SchemaRegistry;
using Microsoft.Extensions.Configuration;
using Xunit;

namespace KafkaProtobuf.Tests.Registry;

/// <summary>The registry client's options from settings named as Confluent's SchemaRegistryConfig names them, e.g. from configuration.</summary>
public sealed class RegistryClientOptionsFromSettingsTests
{
    private static RegistryClientOptions From(params (string Key, string? Value)[] settings) =>
        RegistryClientOptions.FromSettings(settings.Select(s => new KeyValuePair<string, string?>(s.Key, s.Value)));

    [Fact]
    public void ConfluentsNames_WithThePrefix_SetEveryOption()
    {
        RegistryClientOptions options = From(
            ("schema.registry.url", "http://127.0.0.1:8081, http://127.0.0.1:8082"),
            ("schema.registry.basic.auth.credentials.source", "USER_INFO"),
            ("schema.registry.basic.auth.user.info", "key:secret"),
            ("schema.registry.request.timeout.ms", "2500"),
            ("schema.registry.max.retries", "0"),
            ("schema.registry.retries.wait.ms", "50"),
            ("schema.registry.retries.max.wait.ms", "400"));

        Assert.Equal(["http://127.0.0.1:8081", "http://127.0.0.1:8082"], options.Urls);
        Assert.Equal("key:secret", options.BasicAuthUserInfo);
        Assert.Equal(TimeSpan.FromMilliseconds(2500), options.RequestTimeout);
        Assert.Equal(0, options.MaxRetries);
        Assert.Equal(TimeSpan.FromMilliseconds(50), options.RetryBackoff);
        Assert.Equal(TimeSpan.FromMilliseconds(400), options.MaxRetryBackoff);
        Assert.Null(options.BearerToken);
    }

    [Fact]
    public async Task WithoutThePrefix_FromAConfigurationSection_SectionsWithoutValuesSkipped()
    {
        IConfiguration configuration = new ConfigurationBuilder().AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["SchemaRegistry:url"] = "https://registry.example",
            ["SchemaRegistry:bearer.auth.credentials.source"] = "STATIC_TOKEN",
            ["SchemaRegistry:bearer.auth.token"] = "t0ken",
        }).Build();

        RegistryClientOptions options = RegistryClientOptions.FromSettings(configuration.GetSection("SchemaRegistry").AsEnumerable(makePathsRelative: true));

        Assert.Equal(["https://registry.example"], options.Urls);
        Assert.Equal("t0ken", await options.BearerToken!(CancellationToken.None));
        Assert.Null(options.BasicAuthUserInfo);
        Assert.Equal(new RegistryClientOptions().RequestTimeout, options.RequestTimeout); // the defaults stay
    }

    [Theory]
    [InlineData("schema.registry.urls", "http://x", "Unknown Schema Registry setting 'schema.registry.urls'")]
    [InlineData("schema.registry.max.cached.schemas", "1000", "Unknown Schema Registry setting 'schema.registry.max.cached.schemas'")]
    [InlineData("basic.auth.credentials.source", "SASL_INHERIT", "supports 'USER_INFO' only")]
    [InlineData("bearer.auth.credentials.source", "OAUTHBEARER", "supports 'STATIC_TOKEN' only")]
    [InlineData("request.timeout.ms", "0", "not a whole number of at least 1")]
    [InlineData("max.retries", "-1", "not a whole number of at least 0")]
    [InlineData("retries.wait.ms", "fast", "not a whole number of at least 0")]
    public void ASettingItCannotHonour_IsRefusedByName(string key, string value, string message)
    {
        ArgumentException e = Assert.Throws<ArgumentException>(() => From(("url", "http://127.0.0.1:8081"), (key, value)));

        Assert.Contains(message, e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void NoUrl_IsRefused()
    {
        ArgumentException e = Assert.Throws<ArgumentException>(() => From(("max.retries", "1"), ("url", " ")));

        Assert.Contains("no Schema Registry URL", e.Message, StringComparison.Ordinal);
    }
}
