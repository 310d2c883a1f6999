using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Net.Http;
using System.Net.Http.Headers;
using System.Text;
using System.Text.Json;
using System.Text.Json.Serialization.Metadata;
using System.Threading;
using System.Threading.Tasks;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>
/// Sends one REST call: authentication, per-request timeout, retries with exponential back-off and jitter on
/// connection failures, timeouts, 408, 429 and 5xx, fail-over across URLs, and every failure turned into a
/// <see cref="SchemaRegistryRequestException"/>.
/// </summary>
internal sealed class RegistryTransport : IDisposable
{
    private const string ContentType = "application/vnd.schemaregistry.v1+json";
    private const string Accept = "application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json, application/json";

    private readonly HttpClient _http;
    private readonly bool _ownsHttp;
    private readonly string[] _urls;
    private readonly string? _basicAuth;
    private readonly Func<CancellationToken, Task<string>>? _bearerToken;
    private readonly TimeSpan _timeout;
    private readonly int _maxRetries;
    private readonly ExponentialBackoff _backoff;
    private int _preferredUrl;

    internal RegistryTransport(RegistryClientOptions options)
    {
        _urls = options.Urls.Select(Normalize).ToArray();
        if (_urls.Length == 0)
        {
            throw new ArgumentException("Give at least one registry URL.", nameof(options));
        }

        if (options.BasicAuthUserInfo is not null && options.BearerToken is not null)
        {
            throw new ArgumentException("Use basic authentication or a bearer token, not both.", nameof(options));
        }

        if (options.BasicAuthUserInfo is { } userInfo)
        {
            if (userInfo.IndexOf(':') < 0)
            {
                throw new ArgumentException("BasicAuthUserInfo must be of the form 'user:password'.", nameof(options));
            }

            _basicAuth = Convert.ToBase64String(Encoding.UTF8.GetBytes(userInfo));
        }

        if (options.HttpClient is not null && options.HttpMessageHandler is not null)
        {
            throw new ArgumentException("Give an HttpClient or an HttpMessageHandler, not both.", nameof(options));
        }

        if (options.RequestTimeout <= TimeSpan.Zero || options.MaxRetries < 0 || options.RetryBackoff < TimeSpan.Zero || options.MaxRetryBackoff < options.RetryBackoff)
        {
            throw new ArgumentOutOfRangeException(nameof(options), "The timeout must be positive, retries and back-offs not negative, and MaxRetryBackoff at least RetryBackoff.");
        }

        _bearerToken = options.BearerToken;
        _timeout = options.RequestTimeout;
        _maxRetries = options.MaxRetries;
        _backoff = new ExponentialBackoff(options.RetryBackoff, options.MaxRetryBackoff);
        if (options.HttpClient is not null)
        {
            _http = options.HttpClient;
        }
        else
        {
            // Timeouts are ours, per request; the handler, if the user gave one, stays theirs.
            _http = options.HttpMessageHandler is null
                ? new HttpClient { Timeout = System.Threading.Timeout.InfiniteTimeSpan }
                : new HttpClient(options.HttpMessageHandler, disposeHandler: false) { Timeout = System.Threading.Timeout.InfiniteTimeSpan };
            _ownsHttp = true;
        }
    }

    internal async Task<T> SendAsync<T>(HttpMethod method, string pathAndQuery, SchemaRequestJson? body, JsonTypeInfo<T> responseType, CancellationToken cancellationToken)
    {
        byte[]? content = body is null ? null : JsonSerializer.SerializeToUtf8Bytes(body, RegistryJsonContext.Default.SchemaRequestJson);
        SchemaRegistryRequestException? last = null;
        int start = Volatile.Read(ref _preferredUrl);
        for (int attempt = 0; attempt <= _maxRetries; attempt++)
        {
            if (attempt > 0)
            {
                await Task.Delay(_backoff.Delay(attempt), cancellationToken).ConfigureAwait(false);
            }

            int index = (start + attempt) % _urls.Length;
            string url = _urls[index] + pathAndQuery;
            try
            {
                T result = await SendOnceAsync(method, url, content, responseType, cancellationToken).ConfigureAwait(false);
                Volatile.Write(ref _preferredUrl, index);
                return result;
            }
            catch (RetriableFailure failure)
            {
                last = failure.Exception;
            }
        }

        throw last!;
    }

    public void Dispose()
    {
        if (_ownsHttp)
        {
            _http.Dispose();
        }
    }

    private async Task<T> SendOnceAsync<T>(HttpMethod method, string url, byte[]? content, JsonTypeInfo<T> responseType, CancellationToken cancellationToken)
    {
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        timeout.CancelAfter(_timeout);
        using var request = new HttpRequestMessage(method, url);
        request.Headers.TryAddWithoutValidation("Accept", Accept);
        if (content is not null)
        {
            request.Content = new ByteArrayContent(content);
            request.Content.Headers.ContentType = new MediaTypeHeaderValue(ContentType);
        }

        try
        {
            if (_basicAuth is not null)
            {
                request.Headers.Authorization = new AuthenticationHeaderValue("Basic", _basicAuth);
            }
            else if (_bearerToken is not null)
            {
                request.Headers.Authorization = new AuthenticationHeaderValue("Bearer", await _bearerToken(timeout.Token).ConfigureAwait(false));
            }

            using HttpResponseMessage response = await _http.SendAsync(request, HttpCompletionOption.ResponseContentRead, timeout.Token).ConfigureAwait(false);
#if NET
            byte[] bytes = await response.Content.ReadAsByteArrayAsync(timeout.Token).ConfigureAwait(false);
#else
            byte[] bytes = await response.Content.ReadAsByteArrayAsync().ConfigureAwait(false);
#endif
            int status = (int)response.StatusCode;
            if (status is >= 200 and < 300)
            {
                try
                {
                    return JsonSerializer.Deserialize(bytes, responseType)
                        ?? throw new SchemaRegistryRequestException(url, status, null, "the answer was empty", null);
                }
                catch (JsonException e)
                {
                    throw new SchemaRegistryRequestException(url, status, null, "the answer is not the JSON expected: " + e.Message, e);
                }
            }

            SchemaRegistryRequestException error = ErrorFrom(url, status, bytes, response.ReasonPhrase);
            throw status is 408 or 429 or >= 500 ? new RetriableFailure(error) : error;
        }
        catch (HttpRequestException e)
        {
            throw new RetriableFailure(new SchemaRegistryRequestException(url, null, null, e.Message, e));
        }
        catch (OperationCanceledException e) when (!cancellationToken.IsCancellationRequested)
        {
            throw new RetriableFailure(new SchemaRegistryRequestException(url, null, null, "no answer within " + _timeout.TotalMilliseconds.ToString(CultureInfo.InvariantCulture) + " ms", e));
        }
    }

    private static SchemaRegistryRequestException ErrorFrom(string url, int status, byte[] body, string? reason)
    {
        try
        {
            ErrorJson? error = JsonSerializer.Deserialize(body, RegistryJsonContext.Default.ErrorJson);
            if (error is { Message: not null })
            {
                return new SchemaRegistryRequestException(url, status, error.ErrorCode, error.Message, null);
            }
        }
        catch (JsonException)
        {
            // Not the registry's error shape (a proxy's page, an empty body): say what there was.
        }

        string text = Encoding.UTF8.GetString(body, 0, Math.Min(body.Length, 200)).Trim();
        return new SchemaRegistryRequestException(url, status, null, text.Length > 0 ? text : reason ?? "no message", null);
    }

    private static string Normalize(string url)
    {
        if (string.IsNullOrWhiteSpace(url))
        {
            throw new ArgumentException("A registry URL is empty.", nameof(url));
        }

        string trimmed = url.Trim().TrimEnd('/');
        return trimmed.StartsWith("http://", StringComparison.OrdinalIgnoreCase) || trimmed.StartsWith("https://", StringComparison.OrdinalIgnoreCase)
            ? trimmed
            : "http://" + trimmed;
    }

    /// <summary>A failure worth another try (elsewhere or later); what is thrown in the end is its exception.</summary>
    private sealed class RetriableFailure(SchemaRegistryRequestException exception) : Exception(exception.Message)
    {
        internal SchemaRegistryRequestException Exception { get; } = exception;
    }
}
