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
    [InlineData("schema.registry.urls", "http://x", "'schema.registry.urls' is not a Schema Registry setting this client knows")]
    [InlineData("schema.registry.max.cached.schemas", "1000", "is not supported: this client keeps no cache; the deserializers do: set WriterSchemas.CacheCapacity")]
    [InlineData("latest.cache.ttl.secs", "60", "is not supported: this client keeps no cache of latest versions")]
    [InlineData("schema.registry.value.subject.name.strategy", "Record", "set RegistrySerializerOptions.SubjectNaming")]
    [InlineData("basic.auth.credentials.source", "URL", "this client knows USER_INFO and SASL_INHERIT")]
    [InlineData("basic.auth.credentials.source", "SASL_INHERIT", "call FromSettings(settings, kafkaClientSettings)")]
    [InlineData("bearer.auth.credentials.source", "OAUTHBEARER_AZURE_IMDS", "set RegistryClientOptions.BearerToken to a callback")]
    [InlineData("bearer.auth.credentials.source", "CUSTOM", "set RegistryClientOptions.BearerToken to your callback in code")]
    [InlineData("bearer.auth.credentials.source", "OAUTHBEARER", "bearer.auth.token.endpoint.url is not set")]
    [InlineData("bearer.auth.credentials.source", "STATIC_TOKEN", "bearer.auth.token is not set")]
    [InlineData("enable.ssl.certificate.verification", "nope", "not true or false")]
    [InlineData("ssl.ca.location", "/nonexistent/ca.pem", "names a file that cannot be used")]
    [InlineData("ssl.keystore.password", "p", "is set without ssl.keystore.location")]
    [InlineData("request.timeout.ms", "0", "not a whole number of at least 1")]
    [InlineData("connections.max.per.server", "0", "not a whole number of at least 1")]
    [InlineData("max.retries", "-1", "not a whole number of at least 0")]
    [InlineData("retries.wait.ms", "fast", "not a whole number of at least 0")]
    public void ASettingItCannotHonour_IsRefusedByName(string key, string value, string message)
    {
        ArgumentException e = Assert.Throws<ArgumentException>(() => From(("url", "http://127.0.0.1:8081"), (key, value)));

        Assert.Contains(message, e.Message, StringComparison.Ordinal);
        Assert.Contains("'" + key + "'", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void OAuthClientCredentials_AndConfluentCloudsHeaders_ByConfluentsNames()
    {
        RegistryClientOptions options = From(
            ("schema.registry.url", "https://psrc-1.europe-west3.gcp.confluent.cloud"),
            ("schema.registry.bearer.auth.credentials.source", "OAUTHBEARER"),
            ("schema.registry.bearer.auth.token.endpoint.url", "https://idp.example/oauth2/token"),
            ("schema.registry.bearer.auth.token.endpoint.query", "audience=registry"),
            ("schema.registry.bearer.auth.client.id", "orders-service"),
            ("schema.registry.bearer.auth.client.secret", "s3cret"),
            ("schema.registry.bearer.auth.scope", "registry.read"),
            ("schema.registry.bearer.auth.logical.cluster", "lsrc-12345"),
            ("schema.registry.bearer.auth.identity.pool.id", "pool-AbCd"),
            ("schema.registry.connections.max.per.server", "8"));

        Assert.Equal("https://idp.example/oauth2/token?audience=registry", options.OAuth!.TokenEndpoint);
        Assert.Equal(("orders-service", "s3cret", "registry.read"), (options.OAuth.ClientId, options.OAuth.ClientSecret, options.OAuth.Scope));
        Assert.Equal(("lsrc-12345", "pool-AbCd"), (options.LogicalCluster, options.IdentityPoolId));
        Assert.Equal(8, options.MaxConnectionsPerServer);
        Assert.Null(options.BearerToken);
        Assert.Null(options.BasicAuthUserInfo);
    }

    [Fact]
    public void JavasIssuerEndpointName_AndNoSource_MeanOAuth()
    {
        RegistryClientOptions options = From(
            ("url", "https://registry.example"),
            ("bearer.auth.issuer.endpoint.url", "https://idp.example/token"),
            ("bearer.auth.client.id", "id"),
            ("bearer.auth.client.secret", "secret"));

        Assert.Equal("https://idp.example/token", options.OAuth!.TokenEndpoint);
        Assert.Null(options.OAuth.Scope);
    }

    [Fact]
    public void TwoKindsOfBearerCredentials_AreRefused()
    {
        ArgumentException e = Assert.Throws<ArgumentException>(() => From(
            ("url", "https://registry.example"), ("bearer.auth.token", "t"), ("bearer.auth.token.endpoint.url", "https://idp.example/token"), ("bearer.auth.client.id", "id"), ("bearer.auth.client.secret", "secret")));

        Assert.Contains("give one", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void SaslInherit_TakesTheKafkaClientsSaslUserAndPassword()
    {
        var consumer = new Confluent.Kafka.ConsumerConfig { SaslMechanism = Confluent.Kafka.SaslMechanism.ScramSha512, SaslUsername = "kafka-user", SaslPassword = "kafka-Pa55" };

        RegistryClientOptions options = RegistryClientOptions.FromSettings(
            [new("schema.registry.url", "https://registry.example"), new("schema.registry.basic.auth.credentials.source", "SASL_INHERIT")], consumer);

        Assert.Equal("kafka-user:kafka-Pa55", options.BasicAuthUserInfo);
        Assert.DoesNotContain("kafka-Pa55", options.ToString(), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("OAUTHBEARER", "kafka-user", "sasl.mechanism is OAUTHBEARER, which has no username and password to inherit")]
    [InlineData("PLAIN", null, "have no sasl.username and sasl.password")]
    public void SaslInherit_WithNothingToInherit_IsRefusedWithTheReason(string mechanism, string? user, string message)
    {
        var kafka = new Dictionary<string, string> { ["sasl.mechanism"] = mechanism, ["sasl.password"] = "p" };
        if (user is not null)
        {
            kafka["sasl.username"] = user;
        }

        ArgumentException e = Assert.Throws<ArgumentException>(() => RegistryClientOptions.FromSettings(
            [new("url", "https://registry.example"), new("basic.auth.credentials.source", "SASL_INHERIT")], kafka));

        Assert.Contains(message, e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void ARefusedSetting_NeverEchoesASecretsValue()
    {
        ArgumentException e = Assert.Throws<ArgumentException>(() => From(
            ("url", "https://registry.example"), ("bearer.auth.credentials.source", "STATIC_TOKEN"), ("bearer.auth.token", "t0ken-Value"), ("bearer.auth.client.secret", "s3cret-Value")));

        Assert.DoesNotContain("t0ken-Value", e.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("s3cret-Value", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void EveryNameInSettingNames_IsReadOrRefusedByName_NeverUnknown()
    {
        foreach (string name in RegistryClientOptions.SettingNames.Where(n => n != "url"))
        {
            try
            {
                From(("url", "http://127.0.0.1:8081"), (name, "x"));
            }
            catch (Exception e) when (e is ArgumentException or System.IO.IOException)
            {
                Assert.DoesNotContain("is not a Schema Registry setting this client knows", e.Message, StringComparison.Ordinal);
            }
        }

        ArgumentException unknown = Assert.Throws<ArgumentException>(() => From(("url", "http://127.0.0.1:8081"), ("ssl.truststore.location", "x")));
        Assert.Contains("is not a Schema Registry setting this client knows", unknown.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void NoUrl_IsRefused()
    {
        ArgumentException e = Assert.Throws<ArgumentException>(() => From(("max.retries", "1"), ("url", " ")));

        Assert.Contains("no Schema Registry URL", e.Message, StringComparison.Ordinal);
    }
}
