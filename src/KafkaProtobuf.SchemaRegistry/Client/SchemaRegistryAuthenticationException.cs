using System;
using System.Globalization;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>
/// The registry, or the OAuth token endpoint, refused this client's credentials: a 401 (after one fresh token, for
/// OAuth) or 403 from the registry, or a token endpoint answering 4xx (<c>invalid_client</c>, <c>invalid_scope</c>...).
/// Not retried and not failed over: waiting will not fix a wrong secret. As a deserializer's schema source the client
/// reports it as an <see cref="UnauthorizedAccessException"/> (<see cref="SchemaUnavailableException.IsAccessDenied"/>),
/// on which the hosted consumer stops. The message names the URL, the status and the registry's or endpoint's error,
/// never a secret or token.
/// </summary>
public sealed class SchemaRegistryAuthenticationException : SchemaRegistryRequestException
{
    /// <summary>Creates the exception.</summary>
    /// <param name="url">The registry request's or token endpoint's URL.</param>
    /// <param name="statusCode">The HTTP status.</param>
    /// <param name="errorCode">The registry's <c>error_code</c>, when its answer had one.</param>
    /// <param name="registryMessage">The registry's or token endpoint's error.</param>
    /// <param name="fromTokenEndpoint">Whether the OAuth token endpoint refused, rather than the registry.</param>
    public SchemaRegistryAuthenticationException(string url, int statusCode, int? errorCode, string registryMessage, bool fromTokenEndpoint)
        : base(Describe(url, statusCode, errorCode, registryMessage, fromTokenEndpoint), url, statusCode, errorCode, registryMessage, null)
    {
        FromTokenEndpoint = fromTokenEndpoint;
    }

    /// <summary>Whether the OAuth token endpoint refused the client credentials, rather than the registry the token or key.</summary>
    public bool FromTokenEndpoint { get; }

    private static string Describe(string url, int statusCode, int? errorCode, string message, bool fromTokenEndpoint)
    {
        string status = statusCode.ToString(CultureInfo.InvariantCulture) + (errorCode is null ? string.Empty : " (error code " + errorCode.Value.ToString(CultureInfo.InvariantCulture) + ")");
        return fromTokenEndpoint
            ? "The OAuth token endpoint " + url + " refused the registry client's credentials with " + status + ": " + message + ". Check bearer.auth.client.id, bearer.auth.client.secret and bearer.auth.scope; not retried."
            : "The schema registry refused the credentials with " + status + " to " + url + ": " + message
                + (statusCode == 403 ? ". The credentials are valid but not allowed this request (role bindings, bearer.auth.logical.cluster, bearer.auth.identity.pool.id); not retried." : ". Check the API key and secret or the OAuth client; not retried.");
    }
}
