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

    /// <summary>In loopback-only mode, a request from another address is refused.</summary>
    public bool Refused(HttpContext context) =>
        LoopbackOnly && !(context.Connection.RemoteIpAddress is { } address && IPAddress.IsLoopback(address));

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
