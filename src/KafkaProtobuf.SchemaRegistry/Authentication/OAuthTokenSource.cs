using System;
using System.Collections.Generic;
using System.Globalization;
using System.Net.Http;
using System.Net.Http.Headers;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Logging;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>
/// One access token from a client-credentials grant, shared by every request: fetched once (concurrent first requests
/// share the fetch), fetched again in the background from 80% of its lifetime while requests keep using it, waited
/// for from 95% (so no request leaves with a token about to lapse), and dropped when the registry answers 401 to it.
/// </summary>
internal sealed class OAuthTokenSource
{
    private const double RefreshAt = 0.8;
    private const double UsableUntil = 0.95;

    private readonly OAuthClientCredentials _credentials;
    private readonly string _endpoint;
    private readonly string _shown; // the endpoint in messages: without its query, which may carry a secret
    private readonly HttpClient _http;
    private readonly TimeSpan _timeout;
    private readonly int _maxResponseBytes;
    private readonly TimeProvider _time;
    private readonly ILogger? _logger;
    private readonly object _lock = new();
    private Token? _current;
    private Task<Token>? _fetch;

    internal OAuthTokenSource(OAuthClientCredentials credentials, HttpClient http, TimeSpan timeout, int maxResponseBytes, TimeProvider time, ILogger? logger)
    {
        _logger = logger;
        _credentials = credentials;
        _endpoint = credentials.TokenEndpoint;
        _shown = RegistryUrls.Shown(credentials.TokenEndpoint);
        _http = http;
        _timeout = timeout;
        _maxResponseBytes = maxResponseBytes;
        _time = time;
    }

    /// <summary>The token to send; waits only when there is none yet or it is about to lapse.</summary>
    internal ValueTask<string> GetAsync(CancellationToken cancellationToken)
    {
        Token? current = Volatile.Read(ref _current);
        long now = _time.GetTimestamp();
        if (current is not null && now < current.RefreshAt)
        {
            return new ValueTask<string>(current.Value);
        }

        bool background = current is not null && now < current.UsableUntil;
        Task<Token> fetch = StartFetch(background);
        if (background)
        {
            return new ValueTask<string>(current!.Value); // the new one arrives in the background
        }

        return WaitAsync(fetch, cancellationToken);
    }

    /// <summary>The registry answered 401 to this token: the next request fetches another (unless one came meanwhile).</summary>
    internal void Refused(string token)
    {
        lock (_lock)
        {
            if (_current is { } current && current.Value == token)
            {
                _current = null;
            }
        }
    }

    private static async ValueTask<string> WaitAsync(Task<Token> fetch, CancellationToken cancellationToken) =>
        (await CallerWait.WaitAsync(fetch, cancellationToken).ConfigureAwait(false)).Value;

    /// <summary>The fetch in flight, or a new one; <paramref name="background"/>: no request waits for it (a token is still usable).</summary>
    private Task<Token> StartFetch(bool background)
    {
        lock (_lock)
        {
            if (_fetch is null || _fetch.IsCompleted)
            {
                _fetch = FetchAsync();

                // A background refresh nobody awaits must not fault unobserved (requests that wait see its exception): its
                // failure is logged instead, once the fetch is over, so the next request starts another.
                _ = _fetch.ContinueWith(
                    (fetch, refresh) => Failed(fetch.Exception!, (bool)refresh!),
                    background,
                    CancellationToken.None,
                    TaskContinuationOptions.OnlyOnFaulted | TaskContinuationOptions.ExecuteSynchronously,
                    TaskScheduler.Default);
            }

            return _fetch;
        }
    }

    private void Failed(AggregateException failure, bool background)
    {
        if (background && _logger is { } logger)
        {
            Exception why = failure.InnerException ?? failure;
            RegistryLog.TokenRefreshFailed(logger, _shown, BoundedText.Cut(why.Message, 300), why);
        }
    }

    private async Task<Token> FetchAsync()
    {
        var fields = new List<KeyValuePair<string, string>>
        {
            new("grant_type", "client_credentials"),
            new("client_id", _credentials.ClientId),
            new("client_secret", _credentials.ClientSecret),
        };
        if (_credentials.Scope is { Length: > 0 } scope)
        {
            fields.Add(new("scope", scope));
        }

        using var timeout = new CancellationTokenSource(_timeout);
        using var request = new HttpRequestMessage(HttpMethod.Post, _endpoint) { Content = new FormUrlEncodedContent(fields) };
        request.Headers.Accept.Add(new MediaTypeWithQualityHeaderValue("application/json"));
        long sent = _time.GetTimestamp();
        byte[] body;
        int status;
        try
        {
            using HttpResponseMessage response = await _http.SendAsync(request, HttpCompletionOption.ResponseHeadersRead, timeout.Token).ConfigureAwait(false);
            status = (int)response.StatusCode;
            bool tooLarge;
            (body, tooLarge) = await BoundedContent.ReadAsync(response, _maxResponseBytes, timeout.Token).ConfigureAwait(false);
            if (tooLarge)
            {
                throw new SchemaRegistryRequestException(_shown, status, null, "the OAuth token endpoint's answer is larger than MaxResponseBytes (" + _maxResponseBytes.ToString("N0", CultureInfo.InvariantCulture) + " bytes)", null);
            }
        }
        catch (HttpRequestException e)
        {
            throw new SchemaRegistryRequestException(_shown, null, null, "the OAuth token endpoint could not be reached: " + RegistryTransport.Describe(e), e);
        }
        catch (OperationCanceledException e)
        {
            throw new SchemaRegistryRequestException(_shown, null, null, "the OAuth token endpoint gave no token within " + _timeout.TotalMilliseconds.ToString(CultureInfo.InvariantCulture) + " ms", e);
        }

        TokenJson? answer = Parse(body);
        if (status is >= 200 and < 300 && answer?.AccessToken is { Length: > 0 } token)
        {
            // Lifetimes are counted from when the request left: the token cannot outlive what the endpoint said.
            double lifetime = answer.ExpiresIn is > 0 ? answer.ExpiresIn.Value : double.PositiveInfinity;
            var fresh = new Token(token, At(sent, lifetime * RefreshAt), At(sent, lifetime * UsableUntil));
            lock (_lock)
            {
                _current = fresh;
            }

            return fresh;
        }

        string error = answer?.Error is { } code ? BoundedText.Cut(code + (answer.ErrorDescription is { } description ? ": " + description : string.Empty))
            : status is >= 200 and < 300 ? "the answer has no access_token"
            : status is >= 300 and < 400 ? "a redirect, which the client does not follow (the form it sends holds the client secret): give the endpoint's own URL"
            : RegistryTransport.Excerpt(body);
        if (status is >= 300 and < 500 and not 408 and not 429)
        {
            throw new SchemaRegistryAuthenticationException(_shown, status, null, error.Length > 0 ? error : "no message", fromTokenEndpoint: true);
        }

        throw new SchemaRegistryRequestException(_shown, status, null, "the OAuth token endpoint failed: " + (error.Length > 0 ? error : "no message"), null);
    }

    private static TokenJson? Parse(byte[] body)
    {
        try
        {
            return body.Length == 0 ? null : JsonSerializer.Deserialize(body, RegistryJsonContext.Default.TokenJson);
        }
        catch (JsonException)
        {
            return null; // not JSON (a proxy's page): described from the bytes
        }
    }

    private long At(long start, double seconds) =>
        double.IsInfinity(seconds) || seconds * _time.TimestampFrequency >= long.MaxValue - start ? long.MaxValue : start + (long)(seconds * _time.TimestampFrequency);

    private sealed class Token(string value, long refreshAt, long usableUntil)
    {
        internal string Value { get; } = value;

        internal long RefreshAt { get; } = refreshAt;

        internal long UsableUntil { get; } = usableUntil;
    }
}
