namespace KafkaProtobuf.SchemaRegistry;

/// <summary>
/// OAuth 2.0 client credentials for the registry (Confluent's <c>bearer.auth.credentials.source=OAUTHBEARER</c>): the
/// client asks <see cref="TokenEndpoint"/> for an access token, shares it between concurrent requests, fetches a new
/// one before it expires (at 80% of its <c>expires_in</c>, as Confluent's client) and once more when the registry
/// answers 401 to it. The token and the secret are never logged nor put in an exception message or
/// <see cref="ToString"/>.
/// </summary>
public sealed class OAuthClientCredentials
{
    /// <summary>
    /// The token endpoint's URL (Confluent's <c>bearer.auth.token.endpoint.url</c>; Java's
    /// <c>bearer.auth.issuer.endpoint.url</c>), with any query the endpoint needs (<c>bearer.auth.token.endpoint.query</c>
    /// is appended to it). Reached with the system's trusted CAs, not the registry's <see cref="RegistryClientOptions.TrustedCertificateAuthorities"/>,
    /// and never by a redirect (a 3xx is an error naming it: the form would carry the client secret wherever it points).
    /// Messages and <see cref="ToString"/> show it without its query; user info in it is refused.
    /// </summary>
    public string TokenEndpoint { get; set; } = string.Empty;

    /// <summary>The client id (<c>bearer.auth.client.id</c>).</summary>
    public string ClientId { get; set; } = string.Empty;

    /// <summary>The client secret (<c>bearer.auth.client.secret</c>), sent in the form body with the id, as Confluent's client sends it.</summary>
    public string ClientSecret { get; set; } = string.Empty;

    /// <summary>The scope to ask for (<c>bearer.auth.scope</c>); none when <see langword="null"/>.</summary>
    public string? Scope { get; set; }

    /// <summary>The endpoint (its query left out, as it may carry a secret) and client id, never the secret.</summary>
    /// <returns>A description.</returns>
    public override string ToString() => "OAuth client '" + ClientId + "' at " + RegistryUrls.Shown(TokenEndpoint) + (Scope is null ? string.Empty : " (scope " + Scope + ")");
}
