using System;
using System.Collections.Generic;
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>Settings of a <see cref="RegistryClient"/>. The client copies them when it is created.</summary>
/// <remarks>There is no cache setting: the client keeps no answers (the deserializers cache what they resolve, see <see cref="WriterSchemaOptions.CacheCapacity"/>).</remarks>
public sealed class RegistryClientOptions
{
    /// <summary>
    /// The registry's base URLs, tried in order: a URL that cannot be reached, times out, or answers 429 or 5xx is
    /// followed by the next (Confluent's <c>schema.registry.url</c>, comma-separated there).
    /// </summary>
    public IList<string> Urls { get; } = new List<string>();

    /// <summary>
    /// Basic authentication as <c>user:password</c>, e.g. a Confluent Cloud API key and secret
    /// (Confluent's <c>basic.auth.user.info</c>). Not with <see cref="BearerToken"/>.
    /// </summary>
    public string? BasicAuthUserInfo { get; set; }

    /// <summary>Returns the bearer token to send with each request (cache and refresh it yourself). Not with <see cref="BasicAuthUserInfo"/>.</summary>
    public Func<CancellationToken, Task<string>>? BearerToken { get; set; }

    /// <summary>How long one HTTP request may take before it counts as failed and is retried. Default 10 s.</summary>
    public TimeSpan RequestTimeout { get; set; } = TimeSpan.FromSeconds(10);

    /// <summary>
    /// How many times a request is tried again after a connection failure, a timeout, 408, 429 or 5xx, across all
    /// <see cref="Urls"/> (never after another 4xx). Default 2.
    /// </summary>
    public int MaxRetries { get; set; } = 2;

    /// <summary>The first back-off between retries; it doubles each time, with jitter. Default 100 ms.</summary>
    public TimeSpan RetryBackoff { get; set; } = TimeSpan.FromMilliseconds(100);

    /// <summary>The longest back-off between retries. Default 2 s.</summary>
    public TimeSpan MaxRetryBackoff { get; set; } = TimeSpan.FromSeconds(2);

    /// <summary>An <see cref="HttpClient"/> to send requests with (it is not disposed by the client); its own timeout should be no shorter than <see cref="RequestTimeout"/>.</summary>
    public HttpClient? HttpClient { get; set; }

    /// <summary>A handler for the client's own <see cref="System.Net.Http.HttpClient"/> (TLS, proxies); not disposed by the client. Not with <see cref="HttpClient"/>.</summary>
    public HttpMessageHandler? HttpMessageHandler { get; set; }
}
