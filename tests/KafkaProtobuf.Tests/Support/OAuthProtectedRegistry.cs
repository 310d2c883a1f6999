using System;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;

namespace KafkaProtobuf.Tests.Support;

/// <summary>
/// The in-process registry requiring a bearer token that the in-process OAuth token endpoint issues (tokens live five
/// minutes), and registry clients that fetch it with the endpoint's client credentials, quick back-offs, and whatever
/// else a test sets. Disposing stops both.
/// </summary>
public sealed class OAuthProtectedRegistry : IDisposable
{
    public const string ClientId = "orders-service";
    public const string ClientSecret = "s3cret-Value-42";

    public OAuthProtectedRegistry() => Registry.RequireBearerToken(Endpoint.IsValid);

    public InProcessSchemaRegistry Registry { get; } = InProcessSchemaRegistry.Start();

    public InProcessTokenEndpoint Endpoint { get; } = new(ClientId, ClientSecret, TimeSpan.FromMinutes(5));

    /// <summary>A client of the registry authenticating at the endpoint with <paramref name="secret"/>, then <paramref name="configure"/>d.</summary>
    public RegistryClient Client(Action<RegistryClientOptions>? configure = null, string secret = ClientSecret)
    {
        var options = new RegistryClientOptions
        {
            Urls = { Registry.Url },
            OAuth = new OAuthClientCredentials { TokenEndpoint = Endpoint.Url, ClientId = ClientId, ClientSecret = secret },
            RetryBackoff = TimeSpan.FromMilliseconds(10),
            MaxRetryBackoff = TimeSpan.FromMilliseconds(50),
        };
        configure?.Invoke(options);
        return new RegistryClient(options);
    }

    public void Dispose()
    {
        Registry.Dispose();
        Endpoint.Dispose();
    }
}
