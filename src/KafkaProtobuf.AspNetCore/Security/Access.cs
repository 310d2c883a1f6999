using System;
using System.Net;
using System.Threading.Tasks;
using Microsoft.AspNetCore.Authorization;
using Microsoft.AspNetCore.Http;

namespace KafkaProtobuf.AspNetCore.Security;

/// <summary>Who may read and act, from the options: the policies, or this machine alone when the application allowed that.</summary>
internal sealed class Access(KafkaProtobufOperationsOptions options, IAuthorizationService? authorization)
{
    /// <summary>Whether the anonymous, loopback-only mode is on (no read policy).</summary>
    public bool LoopbackOnly { get; } = options.ReadPolicy is null && options.AllowAnonymousOnLoopback;

    /// <summary>Whether acting endpoints exist at all.</summary>
    public bool ActsMapped => options.ActPolicy is not null || LoopbackOnly;

    public string? ActPolicy => options.ActPolicy;

    /// <summary>
    /// In loopback-only mode, a request from another address is refused, and so is one whose <c>Host</c> names anything
    /// but this machine (<c>localhost</c>, a loopback address) or a name the application allowed: a page on a domain
    /// that rebinds its name to 127.0.0.1 would otherwise be served, as same-origin, from the operator's own browser.
    /// </summary>
    public bool Refused(HttpContext context) =>
        LoopbackOnly && !(context.Connection.RemoteIpAddress is { } address && IPAddress.IsLoopback(address) && IsAllowedHost(context.Request.Host));

    private bool IsAllowedHost(HostString host)
    {
        if (!host.HasValue)
        {
            return false; // HTTP/1.1 requires a Host; without one, nothing says which name the browser thought it reached
        }

        string name = host.Host;
        if (name.Equals("localhost", StringComparison.OrdinalIgnoreCase))
        {
            return true;
        }

        string literal = name.Length > 2 && name[0] == '[' && name[^1] == ']' ? name[1..^1] : name;
        if (IPAddress.TryParse(literal, out IPAddress? ip) && IPAddress.IsLoopback(ip))
        {
            return true;
        }

        foreach (string allowed in options.LoopbackHostNames)
        {
            if (name.Equals(allowed, StringComparison.OrdinalIgnoreCase))
            {
                return true;
            }
        }

        return false;
    }

    public async Task<bool> CanActAsync(HttpContext context)
    {
        if (options.ActPolicy is null)
        {
            return LoopbackOnly;
        }

        return authorization is not null && (await authorization.AuthorizeAsync(context.User, options.ActPolicy).ConfigureAwait(false)).Succeeded;
    }

    public static string UserOf(HttpContext context) =>
        context.User.Identity is { IsAuthenticated: true } identity
            ? BoundedText.Cut(identity.Name ?? "(an authenticated user without a name)", 200)
            : "anonymous on " + (context.Connection.RemoteIpAddress?.ToString() ?? "an unknown address");
}
