using System;
using System.Net.Http.Headers;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>
/// The <c>Authorization</c> header of every request, from basic credentials, the user's token callback or OAuth client
/// credentials; and whether a 401 is worth one more try with a renewed token (never for basic credentials).
/// </summary>
internal sealed class RegistryAuthentication
{
    private readonly AuthenticationHeaderValue? _basic;
    private readonly Func<CancellationToken, Task<string>>? _callback;
    private readonly OAuthTokenSource? _oauth;

    private RegistryAuthentication(AuthenticationHeaderValue? basic, Func<CancellationToken, Task<string>>? callback, OAuthTokenSource? oauth)
    {
        _basic = basic;
        _callback = callback;
        _oauth = oauth;
    }

    /// <summary>Whether a 401 may be answered by asking for another token.</summary>
    internal bool CanRenew => _basic is null;

    /// <summary>The authentication the options ask for, or <see langword="null"/> for none.</summary>
    /// <exception cref="ArgumentException">More than one kind, or malformed user info or OAuth credentials (never echoed).</exception>
    internal static RegistryAuthentication? From(RegistryClientOptions options, Func<OAuthClientCredentials, OAuthTokenSource> tokenSource)
    {
        int kinds = (options.BasicAuthUserInfo is null ? 0 : 1) + (options.BearerToken is null ? 0 : 1) + (options.OAuth is null ? 0 : 1);
        if (kinds > 1)
        {
            throw new ArgumentException("Use one of basic authentication, a bearer token callback and OAuth client credentials, not several.", nameof(options));
        }

        if (options.BasicAuthUserInfo is { } userInfo)
        {
            if (userInfo.IndexOf(':') < 0)
            {
                throw new ArgumentException("BasicAuthUserInfo must be of the form 'user:password'.", nameof(options));
            }

            return new RegistryAuthentication(new AuthenticationHeaderValue("Basic", Convert.ToBase64String(Encoding.UTF8.GetBytes(userInfo))), null, null);
        }

        if (options.OAuth is { } oauth)
        {
            RegistryUrls.TokenEndpoint(oauth.TokenEndpoint);

            if (oauth.ClientId.Length == 0 || oauth.ClientSecret.Length == 0)
            {
                throw new ArgumentException("OAuth needs a ClientId and a ClientSecret (bearer.auth.client.id, bearer.auth.client.secret).", nameof(options));
            }

            return new RegistryAuthentication(null, null, tokenSource(oauth));
        }

        return options.BearerToken is { } callback ? new RegistryAuthentication(null, callback, null) : null;
    }

    internal async ValueTask<AuthenticationHeaderValue> HeaderAsync(CancellationToken cancellationToken) =>
        _basic ?? new AuthenticationHeaderValue("Bearer", _oauth is not null
            ? await _oauth.GetAsync(cancellationToken).ConfigureAwait(false)
            : await _callback!(cancellationToken).ConfigureAwait(false));

    /// <summary>The registry answered 401 to this header: drop the token, so the next header carries another.</summary>
    internal void Refused(AuthenticationHeaderValue sent)
    {
        if (sent.Parameter is { } token)
        {
            _oauth?.Refused(token);
        }
    }
}
