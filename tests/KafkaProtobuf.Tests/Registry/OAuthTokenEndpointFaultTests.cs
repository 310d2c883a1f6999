using System;
using System.Collections.Concurrent;
using System.Linq;
using System.Threading.Tasks;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tests.Hostile;
using KafkaProtobuf.Tests.Support;
using Microsoft.Extensions.Logging;
using Xunit;

namespace KafkaProtobuf.Tests.Registry;

/// <summary>
/// The OAuth token endpoint failing as real ones do, behind the registry client: no answer in time, 5xx, 408, 429, a
/// 200 without a token, a page that is not JSON, an answer without <c>expires_in</c> or with 0, a background refresh
/// that fails. Each is an outage of a dependency (retried, never a refusal of credentials, never an answer about a
/// schema) or, for the lifetimes, a documented choice; and the client recovers once the endpoint does.
/// </summary>
public sealed class OAuthTokenEndpointFaultTests : IDisposable
{
    private readonly OAuthProtectedRegistry _protected = new();
    public void Dispose() => _protected.Dispose();

    private RegistryClient Client(int maxRetries = 0, TimeProvider? clock = null, TimeSpan? timeout = null) => _protected.Client(options =>
    {
        options.MaxRetries = maxRetries;
        options.RequestTimeout = timeout ?? TimeSpan.FromSeconds(30);
        options.TimeProvider = clock ?? TimeProvider.System;
    });

    private static Task<RegistrySchema> Register(RegistryClient client, string name) =>
        client.RegisterAsync(name + "-value", "syntax = \"proto3\"; message " + name + " {}", "PROTOBUF", [], normalize: false);

    [Theory]
    [InlineData(500, "{\"error\":\"server_error\"}", "server_error")]
    [InlineData(503, "<html>upstream unavailable</html>", "upstream unavailable")] // not JSON: described from its bytes
    [InlineData(502, "<html>" + HostileRecords.Escapes + "\r\nforged</html>", HostileRecords.EscapesWrittenOut + "\\x0d\\x0aforged")] // quoted inert
    [InlineData(408, "", "no message")]
    [InlineData(429, "{\"error\":\"slow_down\",\"error_description\":\"too many requests\"}", "slow_down: too many requests")]
    [InlineData(200, "{\"token_type\":\"Bearer\",\"expires_in\":300}", "the answer has no access_token")]
    [InlineData(200, "<html>log in</html>", "the answer has no access_token")]
    public async Task AFailingAnswer_IsAnOutageSaidAsSuch_NotARefusal_AndTheNextTryGetsAToken(int status, string body, string says)
    {
        using RegistryClient client = Client();
        _protected.Endpoint.AnswerNext(status, body, body.StartsWith('<') ? "text/html" : "application/json");

        var e = await Assert.ThrowsAsync<SchemaRegistryRequestException>(() => Register(client, "First"));

        Assert.IsNotType<SchemaRegistryAuthenticationException>(e); // the credentials were never refused
        Assert.Null(e.StatusCode); // the registry itself said nothing: never an answer about the schema
        Assert.Contains("OAuth token endpoint", e.Message, StringComparison.Ordinal);
        Assert.Contains(says, e.Message, StringComparison.Ordinal);
        Assert.Equal(0, _protected.Registry.TotalRequestCount);

        await Register(client, "Second"); // the endpoint answers again: so does the client
        Assert.Equal(2, _protected.Endpoint.Requests);
        Assert.Equal("Bearer " + _protected.Endpoint.LastToken, _protected.Registry.AuthorizationHeaders.Single());
    }

    [Fact]
    public async Task AFailingAnswer_IsRetriedLikeTheRegistrysOwnOutages()
    {
        using RegistryClient client = Client(maxRetries: 2);
        _protected.Endpoint.AnswerNext(503, "{\"error\":\"temporarily_unavailable\"}");
        _protected.Endpoint.AnswerNext(429, "{\"error\":\"slow_down\"}");

        await Register(client, "Retried");

        Assert.Equal(3, _protected.Endpoint.Requests);
        Assert.Equal(1, _protected.Registry.TotalRequestCount);
    }

    [Fact]
    public async Task NoAnswerInTime_IsAnOutage_NamingTheWait()
    {
        using RegistryClient client = Client(timeout: TimeSpan.FromMilliseconds(500));
        _protected.Endpoint.Hold(); // the endpoint takes the request and says nothing

        var e = await Assert.ThrowsAsync<SchemaRegistryRequestException>(() => Register(client, "Slow"));

        Assert.IsNotType<SchemaRegistryAuthenticationException>(e);
        Assert.Contains("the OAuth token endpoint gave no token within 500 ms", e.Message, StringComparison.Ordinal);
        Assert.Equal(0, _protected.Registry.TotalRequestCount);

        // Once the endpoint answers, so does the client. Each try still has 500 ms: on a loaded machine a try may run out
        // again (seen on .NET 8 under load), so it tries until a minute has passed, and only that outage may recur.
        _protected.Endpoint.Release();
        DateTime end = DateTime.UtcNow.AddMinutes(1);
        while (true)
        {
            try
            {
                await Register(client, "Answered");
                break;
            }
            catch (SchemaRegistryRequestException again) when (again.Message.Contains("gave no token within 500 ms", StringComparison.Ordinal) && DateTime.UtcNow < end)
            {
            }
        }

        Assert.Equal(1, _protected.Registry.TotalRequestCount); // only the request with a token reached the registry
    }

    [Theory]
    [InlineData(null)] // expires_in left out
    [InlineData(0.0)] // expires_in 0
    public async Task ATokenWithoutALifetime_IsKeptUntilTheRegistryRefusesIt_ThenReplacedOnce(double? expiresIn)
    {
        // RFC 6749 makes expires_in optional; without a (positive) one the token is used until a 401, and the request
        // that met the 401 is sent once more with a new token: no lifetime is guessed.
        _protected.Endpoint.SaysExpiresIn = () => expiresIn;
        var clock = new ManualTimeProvider();
        using RegistryClient client = Client(clock: clock);
        await Register(client, "A");
        string first = _protected.Endpoint.LastToken!;

        clock.Advance(TimeSpan.FromDays(365));
        await Register(client, "B");
        Assert.Equal(1, _protected.Endpoint.Requests); // a year on, still the first

        _protected.Endpoint.Revoke(first); // the registry refuses it from now on
        await Register(client, "C");

        Assert.Equal(2, _protected.Endpoint.Requests);
        Assert.Equal(["Bearer " + first, "Bearer " + first, "Bearer " + first, "Bearer " + _protected.Endpoint.LastToken], _protected.Registry.AuthorizationHeaders);
    }

    [Fact]
    public async Task AFailedBackgroundRefresh_LeavesTheTokenInUse_IsLogged_AndTheNextRequestTriesAgain()
    {
        var clock = new ManualTimeProvider();
        var warnings = new ConcurrentQueue<(EventId Id, string Line)>();
        var log = new CapturedLog((level, id, line) => warnings.Enqueue((id, line)));
        _protected.Endpoint.Lifetime = TimeSpan.FromSeconds(100);
        using RegistryClient client = _protected.Client(options =>
        {
            options.TimeProvider = clock;
            options.Logger = log;
        });
        await Register(client, "A");
        string first = _protected.Endpoint.LastToken!;

        _protected.Endpoint.AnswerNext(500, "{\"error\":\"server_error\"}");
        clock.Advance(TimeSpan.FromSeconds(81)); // past 80%: a refresh starts in the background, and fails
        await Register(client, "B");
        Assert.Equal("Bearer " + first, _protected.Registry.AuthorizationHeaders.Last()); // the request did not wait for it, nor fail

        // What the client has seen, not what the endpoint received: until the client has read the 500, a request finds
        // the refresh still in flight and starts none.
        Wait.Until(() => warnings.Any(w => w.Id.Name == "RegistryTokenRefreshFailed"), "the client to log the failed refresh", TimeSpan.FromSeconds(30));
        (EventId _, string warning) = warnings.Single();
        Assert.Contains(_protected.Endpoint.Url, warning, StringComparison.Ordinal);
        Assert.Contains("server_error", warning, StringComparison.Ordinal);
        Assert.DoesNotContain(OAuthProtectedRegistry.ClientSecret, warning, StringComparison.Ordinal);
        Assert.Equal(2, _protected.Endpoint.Requests);

        await Register(client, "C"); // the failed refresh is tried again, still in the background
        Wait.Until(() => _protected.Endpoint.Requests == 3 && _protected.Endpoint.LastToken != first, "a second refresh", TimeSpan.FromSeconds(30));

        // The endpoint has issued it; the client takes it once the answer is read: requests carry it from then on.
        int next = 0;
        Wait.Until(() =>
        {
            Register(client, "D" + next++).GetAwaiter().GetResult();
            return _protected.Registry.AuthorizationHeaders.Last() == "Bearer " + _protected.Endpoint.LastToken;
        }, "a request with the refreshed token", TimeSpan.FromSeconds(30));
        Assert.Equal(3, _protected.Endpoint.Requests);
        Assert.Single(warnings); // the refresh that worked logs nothing
    }

    [Fact]
    public async Task ARefreshFailingPastTheTokensLife_FailsTheRequestAsAnOutage_NotWithTheOldToken()
    {
        var clock = new ManualTimeProvider();
        _protected.Endpoint.Lifetime = TimeSpan.FromSeconds(100);
        using RegistryClient client = Client(clock: clock);
        await Register(client, "A");

        _protected.Endpoint.AnswerNext(503, "{\"error\":\"temporarily_unavailable\"}");
        clock.Advance(TimeSpan.FromSeconds(96)); // past 95%: the old token is not sent, the request waits for a new one
        var e = await Assert.ThrowsAsync<SchemaRegistryRequestException>(() => Register(client, "B"));

        Assert.IsNotType<SchemaRegistryAuthenticationException>(e);
        Assert.Equal(1, _protected.Registry.TotalRequestCount); // only A reached the registry
    }
}
