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
using Microsoft.Extensions.Logging;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>
/// Sends one REST call: authentication, per-request timeout, retries with exponential back-off and jitter on
/// connection failures, timeouts, 408, 429 and 5xx, fail-over across URLs, one more try with a renewed token after a
/// 401, and every failure turned into a <see cref="SchemaRegistryRequestException"/> (a refusal of the credentials into
/// <see cref="SchemaRegistryAuthenticationException"/>, never retried).
/// </summary>
internal sealed class RegistryTransport : IDisposable
{
    private const string ContentType = "application/vnd.schemaregistry.v1+json";
    private const string Accept = "application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json, application/json";

    private readonly HttpClient _http;
    private readonly bool _ownsHttp;
    private HttpClient? _tokenHttp;
    private readonly string[] _urls;
    private readonly RegistryAuthentication? _authentication;
    private readonly string? _logicalCluster;
    private readonly string? _identityPoolId;
    private readonly TimeSpan _timeout;
    private readonly int _maxRetries;
    private readonly int _maxResponseBytes;
    private readonly ExponentialBackoff _backoff;
    private int _preferredUrl;

    internal RegistryTransport(RegistryClientOptions options)
    {
        _urls = options.Urls.Select(RegistryUrls.Registry).ToArray();
        bool ownTls = options.TrustedCertificateAuthorities.Count > 0 || options.ClientCertificate is not null || !options.VerifyServerCertificate || options.MaxConnectionsPerServer is not null;
        new OptionProblems(nameof(RegistryClientOptions))
            .Refuse(_urls.Length == 0, "Urls is empty: give at least one registry URL.")
            .Refuse(options.HttpClient is not null && options.HttpMessageHandler is not null, "HttpClient and HttpMessageHandler are both set: give one.")
            .Refuse(
                ownTls && (options.HttpClient is not null || options.HttpMessageHandler is not null),
                "The TLS options and MaxConnectionsPerServer set up the client's own handler: with your own HttpClient or HttpMessageHandler, set them there.")
            .Require(options.RequestTimeout > TimeSpan.Zero, nameof(options.RequestTimeout), options.RequestTimeout, "positive")
            .Require(options.MaxRetries >= 0, nameof(options.MaxRetries), options.MaxRetries, "at least 0")
            .Require(options.RetryBackoff >= TimeSpan.Zero, nameof(options.RetryBackoff), options.RetryBackoff, "at least zero")
            .Require(options.MaxRetryBackoff >= options.RetryBackoff, nameof(options.MaxRetryBackoff), options.MaxRetryBackoff, "at least RetryBackoff (" + options.RetryBackoff + ")")
            .Require(options.MaxResponseBytes >= 1024, nameof(options.MaxResponseBytes), options.MaxResponseBytes, "at least 1024")
            .Require(options.MaxReferences >= 0, nameof(options.MaxReferences), options.MaxReferences, "at least 0")
            .Require(options.MaxReferenceDepth >= 1, nameof(options.MaxReferenceDepth), options.MaxReferenceDepth, "at least 1")
            .Refuse(options.TimeProvider is null, "TimeProvider is null: leave it at TimeProvider.System or give one.")
            .ThrowIfAny(nameof(options));

        _timeout = options.RequestTimeout;
        _maxRetries = options.MaxRetries;
        _maxResponseBytes = options.MaxResponseBytes;
        _backoff = new ExponentialBackoff(options.RetryBackoff, options.MaxRetryBackoff);
        _logicalCluster = options.LogicalCluster;
        _identityPoolId = options.IdentityPoolId;
        _authentication = RegistryAuthentication.From(options, credentials =>
        {
            // The token endpoint is not the registry: the system's CAs, not the registry's TLS options; a user's client or handler (a proxy) for both.
            // Our own handler follows no redirect: on a 307 or 308 .NET would send the form, client secret and all, wherever it points.
            _tokenHttp = options.HttpClient is null
                ? new HttpClient(options.HttpMessageHandler ?? new HttpClientHandler { AllowAutoRedirect = false }, disposeHandler: options.HttpMessageHandler is null) { Timeout = System.Threading.Timeout.InfiniteTimeSpan }
                : null;
            HttpClient http = _tokenHttp ?? options.HttpClient!;
            return new OAuthTokenSource(credentials, http, options.RequestTimeout, options.MaxResponseBytes, options.TimeProvider!, options.Logger); // checked above
        });

        if (options.HttpClient is not null)
        {
            _http = options.HttpClient;
        }
        else
        {
            // Timeouts are ours, per request; the handler, if the user gave one, stays theirs.
            _http = options.HttpMessageHandler is null
                ? new HttpClient(RegistryHandler.Create(options), disposeHandler: true) { Timeout = System.Threading.Timeout.InfiniteTimeSpan }
                : new HttpClient(options.HttpMessageHandler, disposeHandler: false) { Timeout = System.Threading.Timeout.InfiniteTimeSpan };
            _ownsHttp = true;
        }

        if (!options.VerifyServerCertificate)
        {
            if (options.Logger is { } logger)
            {
                RegistryLog.VerificationOff(logger, string.Join(", ", _urls), null);
            }
        }
    }

    internal Task<T> SendAsync<T>(HttpMethod method, string pathAndQuery, SchemaRequestJson? body, JsonTypeInfo<T> responseType, CancellationToken cancellationToken) =>
        SendContentAsync(
            method,
            pathAndQuery,
            body is null ? null : JsonSerializer.SerializeToUtf8Bytes(body, RegistryJsonContext.Default.SchemaRequestJson),
            responseType,
            cancellationToken);

    /// <summary>Sends a request whose body is already JSON (or none), with the retries, fail-over and authentication every request has.</summary>
    internal async Task<T> SendContentAsync<T>(HttpMethod method, string pathAndQuery, byte[]? content, JsonTypeInfo<T> responseType, CancellationToken cancellationToken)
    {
        SchemaRegistryRequestException? last = null;
        int start = Volatile.Read(ref _preferredUrl);
        bool renewed = false;
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
            catch (Unauthorized refusal) when (!renewed && _authentication is { CanRenew: true })
            {
                // An expired or revoked token: one more try, at once, with a new one; a second 401 is final.
                _authentication.Refused(refusal.Sent);
                renewed = true;
                attempt--;
            }
            catch (Unauthorized refusal)
            {
                throw refusal.Exception;
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

        _tokenHttp?.Dispose();
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

        if (_logicalCluster is not null)
        {
            request.Headers.TryAddWithoutValidation("target-sr-cluster", _logicalCluster);
        }

        if (_identityPoolId is not null)
        {
            request.Headers.TryAddWithoutValidation("Confluent-Identity-Pool-Id", _identityPoolId);
        }

        try
        {
            if (_authentication is not null)
            {
                try
                {
                    request.Headers.Authorization = await _authentication.HeaderAsync(timeout.Token).ConfigureAwait(false);
                }
                catch (SchemaRegistryRequestException e) when (e is not SchemaRegistryAuthenticationException)
                {
                    // The token endpoint is down or answered nonsense: a dependency's outage, retried like the registry's.
                    // The registry itself said nothing (no status), so nothing here is an answer about what was asked.
                    throw new RetriableFailure(new SchemaRegistryRequestException(url, null, null, e.Message, e));
                }
                catch (OperationCanceledException e) when (!cancellationToken.IsCancellationRequested)
                {
                    // The request's time ran out waiting for a token: say it was the token endpoint, not the registry.
                    throw new RetriableFailure(new SchemaRegistryRequestException(url, null, null, "the OAuth token endpoint gave no token within " + _timeout.TotalMilliseconds.ToString(CultureInfo.InvariantCulture) + " ms", e));
                }
            }

            using HttpResponseMessage response = await _http.SendAsync(request, HttpCompletionOption.ResponseHeadersRead, timeout.Token).ConfigureAwait(false);
            (byte[] bytes, bool tooLarge) = await BoundedContent.ReadAsync(response, _maxResponseBytes, timeout.Token).ConfigureAwait(false);
            int status = (int)response.StatusCode;
            if (status is >= 200 and < 300)
            {
                if (tooLarge)
                {
                    // The registry's answer, and it would be the same next time: not retried.
                    throw new SchemaRegistryRequestException(url, status, null, "the answer is larger than MaxResponseBytes (" + _maxResponseBytes.ToString("N0", CultureInfo.InvariantCulture) + " bytes)", null);
                }

                if (bytes.Length == 0)
                {
                    // Nothing said about what was asked (.NET's HttpListener answers so to requests it holds when it
                    // closes, and a registry always sends a body): no answer, so an outage, never a verdict on the schema.
                    throw new RetriableFailure(new SchemaRegistryRequestException(url, null, null, "the answer (" + status.ToString(CultureInfo.InvariantCulture) + ") was empty", null));
                }

                if (response.Content.Headers.ContentType?.MediaType is { } mediaType && mediaType.IndexOf("json", StringComparison.OrdinalIgnoreCase) < 0)
                {
                    // Not the registry talking (a proxy's or a portal's page): no answer about what was asked, so an outage.
                    throw new RetriableFailure(new SchemaRegistryRequestException(url, null, null, "the answer (" + status.ToString(CultureInfo.InvariantCulture) + ", " + mediaType + ") is not the registry's JSON: " + Excerpt(bytes), null));
                }

                try
                {
                    return JsonSerializer.Deserialize(bytes, responseType)
                        ?? throw new SchemaRegistryRequestException(url, status, null, "the answer was empty", null);
                }
                catch (JsonException e) when (!IsJson(bytes))
                {
                    // Not JSON at all, whatever its content type says (a garbled or foreign answer): nothing the registry
                    // said about what was asked, so an outage. JSON of another shape is the registry's answer, below.
                    throw new RetriableFailure(new SchemaRegistryRequestException(url, null, null, "the answer (" + status.ToString(CultureInfo.InvariantCulture) + ") is not JSON: " + Excerpt(bytes), e));
                }
                catch (JsonException e)
                {
                    throw new SchemaRegistryRequestException(url, status, null, "the answer is not the JSON expected: " + e.Message, e);
                }
            }

            (int? errorCode, string message) = ErrorFrom(bytes, response.ReasonPhrase);
            if (status is 401 or 403)
            {
                var refused = new SchemaRegistryAuthenticationException(url, status, errorCode, message, fromTokenEndpoint: false);
                if (status == 401 && request.Headers.Authorization is { } sent)
                {
                    throw new Unauthorized(refused, sent);
                }

                throw refused;
            }

            var error = new SchemaRegistryRequestException(url, status, errorCode, message, null);
            throw status is 408 or 429 or >= 500 ? new RetriableFailure(error) : error;
        }
        catch (HttpRequestException e)
        {
            throw new RetriableFailure(new SchemaRegistryRequestException(url, null, null, Describe(e), e));
        }
        catch (System.IO.IOException e)
        {
            // The connection ended before the answer did: no answer, so an outage.
            throw new RetriableFailure(new SchemaRegistryRequestException(url, null, null, "the answer was cut off: " + e.Message, e));
        }
        catch (OperationCanceledException e) when (!cancellationToken.IsCancellationRequested)
        {
            throw new RetriableFailure(new SchemaRegistryRequestException(url, null, null, "no answer within " + _timeout.TotalMilliseconds.ToString(CultureInfo.InvariantCulture) + " ms", e));
        }
    }

    /// <summary>An HTTP failure in words, with the TLS handshake's reason when there is one (the outer message only says to look inside).</summary>
    internal static string Describe(HttpRequestException e) =>
        e.InnerException is System.Security.Authentication.AuthenticationException tls ? e.Message + " (TLS: " + tls.Message + ")" : e.Message;

    /// <summary>
    /// Whether the bytes are one well-formed JSON value (of any shape, at any depth: JSON nested past what the
    /// deserializer takes is still the registry's answer, and final). The reader does not recurse, and the body is bounded.
    /// </summary>
    private static bool IsJson(byte[] body)
    {
        try
        {
            var reader = new Utf8JsonReader(body, new JsonReaderOptions { MaxDepth = int.MaxValue });
            return reader.Read() && reader.TrySkip() && !reader.Read();
        }
        catch (JsonException)
        {
            return false;
        }
    }

    /// <summary>
    /// The start of an answer that is not the JSON expected (a proxy's page), to say what there was: made inert like any
    /// text from outside a message quotes (a page's line breaks and escapes are written out).
    /// </summary>
    internal static string Excerpt(byte[] body) => BoundedText.Cut(Encoding.UTF8.GetString(body, 0, Math.Min(body.Length, 200)).Trim());

    private static (int? ErrorCode, string Message) ErrorFrom(byte[] body, string? reason)
    {
        try
        {
            ErrorJson? error = JsonSerializer.Deserialize(body, RegistryJsonContext.Default.ErrorJson);
            if (error is { Message: not null })
            {
                return (error.ErrorCode, BoundedText.Cut(error.Message));
            }
        }
        catch (JsonException)
        {
            // Not the registry's error shape (a proxy's page, an empty body): say what there was.
        }

        string text = Excerpt(body);
        return (null, text.Length > 0 ? text : reason ?? "no message");
    }

    /// <summary>A 401 to a request that carried this header: worth one more try if the token can be renewed.</summary>
    private sealed class Unauthorized(SchemaRegistryAuthenticationException exception, AuthenticationHeaderValue sent) : Exception(exception.Message)
    {
        internal SchemaRegistryAuthenticationException Exception { get; } = exception;

        internal AuthenticationHeaderValue Sent { get; } = sent;
    }

    /// <summary>A failure worth another try (elsewhere or later); what is thrown in the end is its exception.</summary>
    private sealed class RetriableFailure(SchemaRegistryRequestException exception) : Exception(exception.Message)
    {
        internal SchemaRegistryRequestException Exception { get; } = exception;
    }
}
