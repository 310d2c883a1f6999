using System;
using System.Collections.Generic;
using System.Globalization;
using System.Net;
using System.Threading;
using System.Threading.Tasks;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tests.Support;
using Xunit;

namespace KafkaProtobuf.Tests.Registry;

/// <summary>
/// No secret in a message, a log line or <c>ToString()</c>: credentials in a registry URL are refused in every form
/// (<c>key:secret@host</c>, with no scheme, once slipped through and rode in every exception), never echoed; a URL's
/// user info and query are left out wherever one is shown; and the OAuth token request follows no redirect, so a token
/// endpoint answering 307 towards another never sends that other the client secret.
/// </summary>
public sealed class SecretLeakTests : IDisposable
{
    private const string Secret = "S3cret-Never-Shown";

    private readonly InProcessSchemaRegistry _registry = InProcessSchemaRegistry.Start();

    public void Dispose() => _registry.Dispose();

    [Theory]
    [InlineData("key:" + Secret + "@127.0.0.1")]
    [InlineData("key:" + Secret + "@127.0.0.1:8081")]
    [InlineData("key:" + Secret + "@127.0.0.1:8081/registry")]
    [InlineData("http://key:" + Secret + "@127.0.0.1:8081")]
    [InlineData("https://" + Secret + "@registry.example")]
    [InlineData("  HTTP://key:" + Secret + "@registry.example/  ")]
    [InlineData("https://registry.example/?api_key=" + Secret)]
    [InlineData("https://registry.example/#" + Secret)]
    public void ARegistryUrlCarryingASecretInAnyForm_IsRefused_WithoutEchoingIt(string url)
    {
        ArgumentException direct = Assert.Throws<ArgumentException>(() => new RegistryClient(new RegistryClientOptions { Urls = { url } }));
        ArgumentException settings = Assert.Throws<ArgumentException>(() => new RegistryClient(RegistryClientOptions.FromSettings([new("schema.registry.url", url)])));

        Assert.DoesNotContain(Secret, direct.ToString(), StringComparison.Ordinal);
        Assert.DoesNotContain(Secret, settings.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task ARegistryUrlWithoutAScheme_IsStillAccepted_AsHttp()
    {
        using var client = new RegistryClient(new RegistryClientOptions { Urls = { "127.0.0.1:" + _registry.Port.ToString(CultureInfo.InvariantCulture) } });

        SchemaRegistryRequestException e = await Assert.ThrowsAsync<SchemaRegistryRequestException>(() => client.GetSchemaAsync(1));

        Assert.Equal(40403, e.ErrorCode); // it reached the registry
        Assert.Equal(1, _registry.RequestCount("/schemas/ids/1"));
    }

    [Fact]
    public void ToString_ShowsNoUserInfoOrQuery_OfAnyUrl_NorTheSecrets()
    {
        var options = new RegistryClientOptions
        {
            Urls = { "key:" + Secret + "@registry-a.example", "https://user:" + Secret + "@registry-b.example:8081/path", "https://registry-c.example/?token=" + Secret },
            OAuth = new OAuthClientCredentials { TokenEndpoint = "https://idp.example/oauth2/token?client_assertion=" + Secret, ClientId = "orders", ClientSecret = Secret },
        };

        string shown = options.ToString();

        Assert.DoesNotContain(Secret, shown, StringComparison.Ordinal);
        Assert.Contains("***@registry-a.example", shown, StringComparison.Ordinal);
        Assert.Contains("https://***@registry-b.example:8081/path", shown, StringComparison.Ordinal);
        Assert.Contains("https://registry-c.example/?…", shown, StringComparison.Ordinal);
        Assert.Contains("https://idp.example/oauth2/token?…", options.OAuth.ToString(), StringComparison.Ordinal);
        Assert.DoesNotContain(Secret, options.OAuth.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task ATokenEndpointsMessages_LeaveItsQueryOut()
    {
        using var tokens = new InProcessTokenEndpoint("orders", "right-secret", TimeSpan.FromMinutes(5));
        _registry.RequireBearerToken(tokens.IsValid);
        using var client = new RegistryClient(new RegistryClientOptions
        {
            Urls = { _registry.Url },
            OAuth = new OAuthClientCredentials { TokenEndpoint = tokens.Url + "?audience=" + Secret, ClientId = "orders", ClientSecret = "wrong-" + Secret },
        });

        SchemaRegistryAuthenticationException e = await Assert.ThrowsAsync<SchemaRegistryAuthenticationException>(() => client.GetSchemaAsync(1));

        Assert.True(e.FromTokenEndpoint);
        Assert.DoesNotContain(Secret, e.ToString(), StringComparison.Ordinal);
        Assert.DoesNotContain(Secret, e.Url, StringComparison.Ordinal);
    }

    [Fact]
    public void ATokenEndpointWithCredentialsInItsUrl_IsRefused_WithoutEchoingThem()
    {
        ArgumentException e = Assert.Throws<ArgumentException>(() => new RegistryClient(new RegistryClientOptions
        {
            Urls = { _registry.Url },
            OAuth = new OAuthClientCredentials { TokenEndpoint = "https://orders:" + Secret + "@idp.example/token", ClientId = "orders", ClientSecret = "x" },
        }));

        Assert.DoesNotContain(Secret, e.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task ATokenEndpointAnswering307_IsNotFollowed_TheOtherEndpointReceivesNothing_AndTheErrorNamesTheRedirect()
    {
        using var elsewhere = new InProcessTokenEndpoint("orders", Secret, TimeSpan.FromMinutes(5)); // would take the secret gladly
        using var redirecting = new RedirectingEndpoint(elsewhere.Url);
        using var client = new RegistryClient(new RegistryClientOptions
        {
            Urls = { _registry.Url },
            OAuth = new OAuthClientCredentials { TokenEndpoint = redirecting.Url, ClientId = "orders", ClientSecret = Secret },
        });

        SchemaRegistryAuthenticationException e = await Assert.ThrowsAsync<SchemaRegistryAuthenticationException>(() => client.GetSchemaAsync(1));

        Assert.Equal(0, elsewhere.Requests);
        Assert.Equal(1, redirecting.Requests); // not retried: a redirect will not go away by asking again
        Assert.True(e.FromTokenEndpoint);
        Assert.Equal(307, e.StatusCode);
        Assert.Contains("redirect", e.Message, StringComparison.Ordinal);
        Assert.Equal(0, _registry.TotalRequestCount);
    }

    /// <summary>A token endpoint that sends every request on to another with a 307 (which keeps the method and the body).</summary>
    private sealed class RedirectingEndpoint : IDisposable
    {
        private readonly HttpListener _listener;
        private readonly Task _loop;
        private readonly string _to;
        private int _requests;

        public RedirectingEndpoint(string to)
        {
            _to = to;
            _listener = LoopbackListener.Start(out string baseUrl);
            Url = baseUrl + "/token";
            _loop = Task.Run(() => LoopbackListener.Serve(_listener, context =>
            {
                Interlocked.Increment(ref _requests);
                context.Response.StatusCode = 307;
                context.Response.RedirectLocation = _to;
                context.Response.Close();
                return Task.CompletedTask;
            }));
        }

        public string Url { get; }

        public int Requests => Volatile.Read(ref _requests);

        public void Dispose()
        {
            _listener.Close();
            _loop.Wait(TimeSpan.FromSeconds(10));
        }
    }
}
