using System;
using System.Collections.Generic;
using System.IO;
using System.Threading.Tasks;
using Microsoft.AspNetCore.Http;

namespace KafkaProtobuf.AspNetCore.Endpoints;

/// <summary>The page's three files, embedded in the assembly: read once, served as they are (no CDN, no build chain).</summary>
internal static class PageAssets
{
    private static readonly Dictionary<string, (byte[] Bytes, string ContentType)> Files = new(StringComparer.Ordinal)
    {
        ["index.html"] = (Load("index.html"), "text/html; charset=utf-8"),
        ["app.js"] = (Load("app.js"), "text/javascript; charset=utf-8"),
        ["app.css"] = (Load("app.css"), "text/css; charset=utf-8"),
    };

    public static Task Serve(HttpContext context, string name)
    {
        (byte[] bytes, string contentType) = Files[name];
        context.Response.ContentType = contentType;
        context.Response.ContentLength = bytes.Length;
        return context.Response.Body.WriteAsync(bytes, 0, bytes.Length, context.RequestAborted);
    }

    private static byte[] Load(string name)
    {
        using Stream stream = typeof(PageAssets).Assembly.GetManifestResourceStream("KafkaProtobuf.AspNetCore.Page." + name)
            ?? throw new InvalidOperationException("The page's " + name + " is missing from the assembly.");
        using var copy = new MemoryStream();
        stream.CopyTo(copy);
        return copy.ToArray();
    }
}
