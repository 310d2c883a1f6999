using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tests.Support;
using Xunit;

namespace KafkaProtobuf.Tests.Registry;

/// <summary>
/// The registry client authenticating as managed registries require, against the in-process registry and an in-process
/// OAuth token endpoint on loopback: basic credentials, OAuth client credentials (one shared fetch, refresh before
/// expiry and after a 401, a wrong secret), Confluent Cloud's headers, refusals never retried nor leaking a secret.
/// </summary>
public sealed class RegistryAuthenticationTests : IDisposable
{
    private const string ClientId = OAuthProtectedRegistry.ClientId;
    private const string ClientSecret = OAuthProtectedRegistry.ClientSecret;

    private readonly OAuthProtectedRegistry _protected = new();
    public void Dispose() => _protected.Dispose();

    private RegistryClient OAuthClient(string secret = ClientSecret, Action<RegistryClientOptions>? configure = null) =>
        _protected.Client(
            options =>
            {
                options.OAuth!.Scope = "registry.read";
                configure?.Invoke(options);
            },
            secret);

    private static Task<RegistrySchema> Register(RegistryClient client, string subject) =>
        client.RegisterAsync(subject, "syntax = \"proto3\"; message M" + subject.Replace("-", string.Empty, StringComparison.Ordinal) + " {}", "PROTOBUF", [], normalize: false);

    [Fact]
    public async Task OAuth_ConcurrentFirstRequests_ShareOneTokenFetch()
    {
        using RegistryClient client = OAuthClient();
        _protected.Endpoint.Hold();

        // Each RegisterAsync runs synchronously up to its wait for a token (nothing awaits before it), so when the
        // sixteen calls have returned every one of them has asked for the token while the first fetch was held: they
        // overlap by construction, whatever the machine's speed, and none can have finished.
        Task<RegistrySchema>[] requests = Enumerable.Range(1, 16).Select(i => Register(client, "subject-" + i)).ToArray();
        Wait.Until(() => _protected.Endpoint.Requests >= 1, "the first token request", TimeSpan.FromSeconds(30));
        Assert.All(requests, r => Assert.False(r.IsCompleted));
        _protected.Endpoint.Release();
        RegistrySchema[] registered = await Task.WhenAll(requests).WaitAsync(TimeSpan.FromSeconds(30));

        Assert.Equal(16, registered.Select(r => r.Id).Distinct().Count());
        Assert.Equal(1, _protected.Endpoint.Requests);
        Assert.Equal("registry.read", _protected.Endpoint.LastScope);
        Assert.All(_protected.Registry.AuthorizationHeaders, header => Assert.Equal("Bearer " + _protected.Endpoint.LastToken, header));
    }

    [Fact]
    public async Task OAuth_AnExpiredToken_IsReplacedBeforeTheRegistryRefusesIt()
    {
        // The client's clock, not the machine's: a real one-second lifetime let a slow moment add a background refresh.
        var clock = new ManualTimeProvider();
        _protected.Endpoint.Lifetime = TimeSpan.FromSeconds(100);
        using RegistryClient client = OAuthClient(configure: o => o.TimeProvider = clock);
        await Register(client, "first");
        string first = _protected.Endpoint.LastToken!;

        clock.Advance(TimeSpan.FromSeconds(101)); // past its life: the next request must not carry it
        await Register(client, "second");

        Assert.Equal(2, _protected.Endpoint.Requests);
        Assert.NotEqual(first, _protected.Endpoint.LastToken);
        Assert.Equal("Bearer " + _protected.Endpoint.LastToken, _protected.Registry.AuthorizationHeaders.Last());
    }

    [Fact]
    public async Task OAuth_TheTokenIsRefreshedAt80PercentOfItsLife_InTheBackground_AndWaitedForOnlyWhenItLapses()
    {
        var clock = new ManualTimeProvider();
        _protected.Endpoint.Lifetime = TimeSpan.FromSeconds(100);
        using RegistryClient client = OAuthClient(configure: o => o.TimeProvider = clock);
        await Register(client, "a");
        string first = _protected.Endpoint.LastToken!;

        clock.Advance(TimeSpan.FromSeconds(79));
        await Register(client, "b");
        Assert.Equal(1, _protected.Endpoint.Requests);

        clock.Advance(TimeSpan.FromSeconds(2)); // 81 s: past 80%, the old token still good
        await Register(client, "c");
        Assert.Equal("Bearer " + first, _protected.Registry.AuthorizationHeaders.Last()); // not waited for
        Wait.Until(() => _protected.Endpoint.Requests == 2 && _protected.Endpoint.LastToken != first, "the background refresh", TimeSpan.FromSeconds(30));
        string second = _protected.Endpoint.LastToken!;

        // Issued by the endpoint; taken by the client once it has read the answer: a request carries it from then on.
        int next = 0;
        Wait.Until(() =>
        {
            Register(client, "d" + next++).GetAwaiter().GetResult();
            return _protected.Registry.AuthorizationHeaders.Last() == "Bearer " + second;
        }, "a request with the refreshed token", TimeSpan.FromSeconds(30));
        Assert.Equal(2, _protected.Endpoint.Requests);

        clock.Advance(TimeSpan.FromSeconds(96)); // past 95% of the second token's life: a request waits for a new one
        await Register(client, "e");
        Assert.Equal(3, _protected.Endpoint.Requests);
        Assert.Equal("Bearer " + _protected.Endpoint.LastToken, _protected.Registry.AuthorizationHeaders.Last());
        Assert.NotEqual(second, _protected.Endpoint.LastToken);
    }


    [Fact]
    public async Task OAuth_ARevokedToken_GetsOneFreshTokenAndTheRequestSucceeds()
    {
        using RegistryClient client = OAuthClient();
        await Register(client, "first");
        _protected.Endpoint.Revoke(_protected.Endpoint.LastToken!);

        await Register(client, "second");

        Assert.Equal(2, _protected.Endpoint.Requests);
        Assert.Equal(2, _protected.Registry.RequestCount("/subjects/second/versions")); // the 401, then the retry with the new token
    }

    [Fact]
    public async Task OAuth_ATokenRefusedTwice_IsAnAuthenticationFailure_NotRetriedFurther()
    {
        using RegistryClient client = OAuthClient();
        _protected.Registry.RequireBearerToken(_ => false); // e.g. the service account has no role on this registry

        var e = await Assert.ThrowsAsync<SchemaRegistryAuthenticationException>(() => Register(client, "orders-value"));

        Assert.Equal(401, e.StatusCode);
        Assert.False(e.FromTokenEndpoint);
        Assert.Equal(2, _protected.Registry.RequestCount("/subjects/orders-value/versions"));
        Assert.Equal(2, _protected.Endpoint.Requests);
        Assert.DoesNotContain("token-", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task OAuth_AWrongSecret_FailsClearly_OnceAndWithoutTheSecret()
    {
        using RegistryClient client = OAuthClient(secret: "wrong-Secret-99");

        var e = await Assert.ThrowsAsync<SchemaRegistryAuthenticationException>(() => client.GetSchemaAsync(1));

        Assert.True(e.FromTokenEndpoint);
        Assert.Equal(401, e.StatusCode);
        Assert.Contains("invalid_client", e.Message, StringComparison.Ordinal);
        Assert.Contains(_protected.Endpoint.Url, e.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("wrong-Secret-99", e.ToString(), StringComparison.Ordinal);
        Assert.Equal(1, _protected.Endpoint.Requests); // not retried
        Assert.Equal(0, _protected.Registry.TotalRequestCount); // the registry never asked
    }

    [Fact]
    public async Task OAuth_ATokenEndpointThatIsDown_IsAnOutage_RetriedThenReportedAsSuch()
    {
        using var down = new InProcessTokenEndpoint(ClientId, ClientSecret, TimeSpan.FromMinutes(5));
        string url = down.Url;
        down.Dispose(); // nothing listens there now
        using RegistryClient client = OAuthClient(configure: o => o.OAuth!.TokenEndpoint = url);

        var e = await Assert.ThrowsAsync<SchemaRegistryRequestException>(() => client.GetSchemaAsync(1));

        Assert.IsNotType<SchemaRegistryAuthenticationException>(e);
        Assert.Contains("token endpoint could not be reached", e.Message, StringComparison.Ordinal);
        Assert.Null(e.StatusCode); // the registry said nothing: never an answer about a schema
        Assert.Equal(0, _protected.Registry.TotalRequestCount);
    }

    [Fact]
    public void OAuth_ATokenEndpointAnsweringAPageWithoutAToken_IsAnOutageOfTheSchema_NeverBadData()
    {
        // A captive portal's or proxy's page on 200: the record is read again, not dead-lettered as if the schema were unusable.
        using var portal = new ScriptedRegistry();
        portal.Raw("/token", 200, "text/html", System.Text.Encoding.UTF8.GetBytes("<html>log in</html>"));
        using RegistryClient client = OAuthClient(configure: o => { o.OAuth!.TokenEndpoint = portal.Url + "/token"; o.MaxRetries = 0; });
        var deserializer = new FramedProtobufDeserializer<Vectors.Telemetry.V1.Reading>(new FramedDeserializerOptions { VerifyWriterType = true, WriterSchemas = { Source = client } });
        byte[] frame = [0x00, 0, 0, 0, 1, 0x00, 0x0a, 0x01, 0x73];

        SchemaUnavailableException e = Assert.Throws<SchemaUnavailableException>(() => deserializer.Deserialize(frame, false, new Confluent.Kafka.SerializationContext(Confluent.Kafka.MessageComponentType.Value, "t")));

        Assert.False(e.IsAccessDenied);
        Assert.Contains("the answer has no access_token", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ConfluentCloudHeaders_AreSentWithEveryRequest()
    {
        using RegistryClient client = OAuthClient(configure: o =>
        {
            o.LogicalCluster = "lsrc-12345";
            o.IdentityPoolId = "pool-AbCd";
        });

        await Register(client, "orders-value");
        await client.IsCompatibleAsync("orders-value", "syntax = \"proto3\";", "PROTOBUF", []);

        Assert.Equal(["lsrc-12345", "lsrc-12345"], _protected.Registry.HeaderValues("target-sr-cluster"));
        Assert.Equal(["pool-AbCd", "pool-AbCd"], _protected.Registry.HeaderValues("Confluent-Identity-Pool-Id"));
    }

    [Fact]
    public async Task BasicAuth_AWrongPassword_IsRefusedOnce_WithoutThePassword()
    {
        _protected.Registry.RequireBasicAuth("API_KEY", "right-Secret-1");
        using var client = new RegistryClient(new RegistryClientOptions { Urls = { _protected.Registry.Url }, BasicAuthUserInfo = "API_KEY:wrong-Secret-2" });

        var e = await Assert.ThrowsAsync<SchemaRegistryAuthenticationException>(() => client.GetSchemaAsync(1));

        Assert.Equal(401, e.StatusCode);
        Assert.Equal(1, _protected.Registry.TotalRequestCount); // neither renewed nor retried
        Assert.DoesNotContain("wrong-Secret-2", e.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task A403_IsAnAuthenticationFailure_NotRetried()
    {
        using RegistryClient client = OAuthClient();
        _protected.Registry.FailNextRequests(3, 403);

        var e = await Assert.ThrowsAsync<SchemaRegistryAuthenticationException>(() => client.GetSchemaAsync(1));

        Assert.Equal(403, e.StatusCode);
        Assert.Contains("not allowed", e.Message, StringComparison.Ordinal);
        Assert.Equal(1, _protected.Registry.TotalRequestCount);
    }

    [Fact]
    public async Task AsASchemaSource_RefusedCredentials_AreAccessDenied_NotAnOutageToWaitOut()
    {
        using RegistryClient client = OAuthClient(secret: "wrong-Secret-99");
        var deserializer = new MultiTypeProtobufDeserializer([Shop.Writer.OrdersReflection.Descriptor], new MultiTypeDeserializerOptions { WriterSchemas = { Source = client } });
        byte[] frame = [0, 0, 0, 0, 7, 0];

        var e = Assert.Throws<SchemaUnavailableException>(() => deserializer.Deserialize(frame, isNull: false, new Confluent.Kafka.SerializationContext(Confluent.Kafka.MessageComponentType.Value, "orders")));

        Assert.True(e.IsAccessDenied);
        Assert.IsType<SchemaRegistryAuthenticationException>(e.InnerException!.InnerException);
        Assert.DoesNotContain("wrong-Secret-99", e.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task AnOutage_IsNotAccessDenied()
    {
        using RegistryClient client = OAuthClient(configure: o => o.MaxRetries = 0);
        _protected.Registry.FailNextRequests(1, 503);
        ISchemaFileSource source = client;

        var e = await Assert.ThrowsAsync<SchemaRegistryRequestException>(() => source.GetSchemaFileAsync(SchemaIdentifier.FromId(1), CancellationToken.None));

        Assert.Equal(503, e.StatusCode);
        Assert.False(new SchemaUnavailableException(SchemaIdentifier.FromId(1), Confluent.Kafka.MessageComponentType.Value, "orders", e).IsAccessDenied);
    }

    [Fact]
    public void ToString_NamesTheSetUp_NeverASecret()
    {
        var options = new RegistryClientOptions
        {
            Urls = { "https://psrc-1.confluent.cloud" },
            OAuth = new OAuthClientCredentials { TokenEndpoint = "https://idp.example/token", ClientId = ClientId, ClientSecret = ClientSecret },
            LogicalCluster = "lsrc-1",
        };
        var basic = new RegistryClientOptions { Urls = { "https://r" }, BasicAuthUserInfo = "KEY:" + ClientSecret };

        string text = options + " | " + basic;

        Assert.Contains(ClientId, text, StringComparison.Ordinal);
        Assert.Contains("lsrc-1", text, StringComparison.Ordinal);
        Assert.Contains("'KEY'", text, StringComparison.Ordinal);
        Assert.DoesNotContain(ClientSecret, text, StringComparison.Ordinal);
    }

    [Fact]
    public void ARegistryUrlWithCredentials_IsRefused_WithoutEchoingThem()
    {
        var e = Assert.Throws<ArgumentException>(() => new RegistryClient("https://key:" + ClientSecret + "@registry.example"));

        Assert.DoesNotContain(ClientSecret, e.Message, StringComparison.Ordinal);
        Assert.Contains("BasicAuthUserInfo", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void SeveralKindsOfAuthentication_AreRefused()
    {
        var oauth = new OAuthClientCredentials { TokenEndpoint = _protected.Endpoint.Url, ClientId = ClientId, ClientSecret = ClientSecret };

        Assert.Throws<ArgumentException>(() => new RegistryClient(new RegistryClientOptions { Urls = { _protected.Registry.Url }, OAuth = oauth, BasicAuthUserInfo = "a:b" }));
        Assert.Throws<ArgumentException>(() => new RegistryClient(new RegistryClientOptions { Urls = { _protected.Registry.Url }, OAuth = oauth, BearerToken = _ => Task.FromResult("t") }));
        Assert.Throws<ArgumentException>(() => new RegistryClient(new RegistryClientOptions { Urls = { _protected.Registry.Url }, OAuth = new OAuthClientCredentials { TokenEndpoint = "not a url", ClientId = "a", ClientSecret = "b" } }));
    }
}
