using System;
using System.IO;
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>
/// Reads an HTTP answer's body up to a limit (<see cref="RegistryClientOptions.MaxResponseBytes"/>), so that a registry
/// or token endpoint cannot make the client hold more: a declared length past it is refused before a byte is read, and
/// an undeclared one is read no further than one byte past it.
/// </summary>
internal static class BoundedContent
{
    /// <summary>The body, or its first <paramref name="maxBytes"/> bytes with <c>TooLarge</c> set when it is longer.</summary>
    internal static async Task<(byte[] Bytes, bool TooLarge)> ReadAsync(HttpResponseMessage response, int maxBytes, CancellationToken cancellationToken)
    {
        if (response.Content.Headers.ContentLength is { } declared && declared > maxBytes)
        {
            return (Array.Empty<byte>(), true);
        }

#if NET
        using Stream body = await response.Content.ReadAsStreamAsync(cancellationToken).ConfigureAwait(false);
#else
        using Stream body = await response.Content.ReadAsStreamAsync().ConfigureAwait(false);
#endif
        using var kept = new MemoryStream();
        byte[] buffer = new byte[Math.Min(81920, maxBytes + 1)];
        while (true)
        {
            int wanted = (int)Math.Min(buffer.Length, (long)maxBytes + 1 - kept.Length);
#if NET
            int read = await body.ReadAsync(buffer.AsMemory(0, wanted), cancellationToken).ConfigureAwait(false);
#else
            int read = await body.ReadAsync(buffer, 0, wanted, cancellationToken).ConfigureAwait(false);
#endif
            if (read == 0)
            {
                return (kept.ToArray(), false);
            }

            kept.Write(buffer, 0, read);
            if (kept.Length > maxBytes)
            {
                kept.SetLength(maxBytes);
                return (kept.ToArray(), true);
            }
        }
    }
}
