using Microsoft.AspNetCore.Http;

namespace KafkaProtobuf.AspNetCore.Security;

/// <summary>
/// What every response of the page says to the browser: scripts, styles and requests only from the page's own origin,
/// no inline script or style, no framing, no sniffing, no referrer, no caching of data. Set as the response starts,
/// over what antiforgery or the application set before.
/// </summary>
internal static class SecurityHeaders
{
    public const string ContentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

    public static void Apply(HttpContext context, bool cacheable = false) =>
        context.Response.OnStarting(
            static state =>
            {
                var (response, cache) = ((HttpResponse, bool))state;
                response.Headers.ContentSecurityPolicy = ContentSecurityPolicy;
                response.Headers.XFrameOptions = "DENY";
                response.Headers.XContentTypeOptions = "nosniff";
                response.Headers["Referrer-Policy"] = "no-referrer";
                response.Headers["Cross-Origin-Opener-Policy"] = "same-origin";
                response.Headers["Cross-Origin-Resource-Policy"] = "same-origin";
                response.Headers.CacheControl = cache ? "no-cache" : "no-store";
                return System.Threading.Tasks.Task.CompletedTask;
            },
            (context.Response, cacheable));
}
