using System;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>
/// The URLs the client is given (the registry's, the OAuth token endpoint's): checked before use, so that no credential
/// rides in one, and shown in messages and <c>ToString()</c> without their user info or query, which may hold secrets.
/// </summary>
internal static class RegistryUrls
{
    /// <summary>
    /// A registry URL as requests use it: trimmed, without a trailing slash, <c>http://</c> when no scheme is given.
    /// Refused, never echoed (it may hold a password): user info in any form (<c>key:secret@host</c> too), a query or a
    /// fragment, anything but http(s).
    /// </summary>
    /// <exception cref="ArgumentException">The URL cannot be used, and why (without the URL).</exception>
    internal static string Registry(string url)
    {
        if (string.IsNullOrWhiteSpace(url))
        {
            throw new ArgumentException("A registry URL is empty.", nameof(url));
        }

        string trimmed = url.Trim().TrimEnd('/');
        string absolute = trimmed.Contains("://") ? trimmed : "http://" + trimmed;
        Uri parsed = Check(absolute, "A registry URL", "give credentials as BasicAuthUserInfo (basic.auth.user.info)");
        if (parsed.Query.Length > 0 || parsed.Fragment.Length > 0)
        {
            throw new ArgumentException("A registry URL has a query or a fragment; give its base URL only.", nameof(url));
        }

        return absolute;
    }

    /// <summary>The OAuth token endpoint: an absolute http(s) URL without user info (its query is the endpoint's own).</summary>
    /// <exception cref="ArgumentException">It cannot be used (never echoed).</exception>
    internal static void TokenEndpoint(string url) =>
        Check(url, "OAuth.TokenEndpoint (bearer.auth.token.endpoint.url)", "give the client's credentials as ClientId and ClientSecret");

    /// <summary>
    /// A URL as messages and <c>ToString()</c> show it: user info as <c>***</c>, a query as <c>?…</c> (it may carry a key
    /// or a secret, as a token endpoint's appended <c>bearer.auth.token.endpoint.query</c> can). Works on any text.
    /// </summary>
    internal static string Shown(string? url)
    {
        if (string.IsNullOrEmpty(url))
        {
            return url ?? string.Empty;
        }

        var shown = new System.Text.StringBuilder(url);
        int query = url!.IndexOfAny(['?', '#']);
        if (query >= 0)
        {
            shown.Length = query;
            shown.Append("?…");
        }

        int authority = url.IndexOf("://", StringComparison.Ordinal);
        int start = authority < 0 ? 0 : authority + 3;
        int end = url.IndexOfAny(['/', '?', '#'], start);
        int limit = end < 0 ? url.Length : end;
        int at = limit > start ? url.LastIndexOf('@', limit - 1, limit - start) : -1; // in the authority only
        if (at >= start)
        {
            shown.Remove(start, at - start).Insert(start, "***");
        }

        return shown.ToString();
    }

    private static Uri Check(string url, string what, string instead)
    {
        if (!Uri.TryCreate(url, UriKind.Absolute, out Uri? parsed) || (parsed.Scheme != Uri.UriSchemeHttps && parsed.Scheme != Uri.UriSchemeHttp))
        {
            throw new ArgumentException(what + " is not an absolute http(s) URL.", nameof(url));
        }

        if (parsed.UserInfo.Length > 0)
        {
            throw new ArgumentException(what + " carries credentials, which would be sent in clear and shown wherever the URL is: " + instead + ".", nameof(url));
        }

        return parsed;
    }
}
