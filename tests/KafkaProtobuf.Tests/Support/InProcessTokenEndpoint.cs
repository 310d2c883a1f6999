using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Net;
using System.Text;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using System.Web;

namespace KafkaProtobuf.Tests.Support;

/// <summary>
/// An OAuth 2.0 token endpoint on loopback for one client: the client-credentials grant (id and secret in the form
/// body, as Confluent's client sends them), tokens that expire after <see cref="Lifetime"/> and can be revoked, and
/// <see cref="IsValid"/> for the in-process registry to check them. Counts the token requests; can hold its answers
/// back until released, answer the next requests with a fault of the test's choosing (<see cref="AnswerNext"/>), and
/// say another <c>expires_in</c> than the tokens' real life, or none (<see cref="SaysExpiresIn"/>).
/// </summary>
public sealed class InProcessTokenEndpoint : IDisposable
{
    private readonly HttpListener _listener;
    private readonly ConcurrentDictionary<string, DateTime> _issued = new(StringComparer.Ordinal);
    private readonly Task _loop;
    private readonly string _clientId;
    private readonly string _clientSecret;
    private readonly ConcurrentQueue<(int Status, string ContentType, string Body)> _faults = new();
    private TaskCompletionSource _released = NewReleased(released: true);
    private int _requests;
    private int _tokens;

    public InProcessTokenEndpoint(string clientId, string clientSecret, TimeSpan lifetime)
    {
        _clientId = clientId;
        _clientSecret = clientSecret;
        Lifetime = lifetime;
        SaysExpiresIn = () => Lifetime.TotalSeconds;
        _listener = LoopbackListener.Start(out string baseUrl);
        Url = baseUrl + "/oauth2/token";
        _loop = Task.Run(() => LoopbackListener.Serve(_listener, AnswerAsync));
    }

    public string Url { get; }

    /// <summary>What <c>expires_in</c> says, and when the endpoint's own check lets a token lapse.</summary>
    public TimeSpan Lifetime { get; set; }

    /// <summary>
    /// What the answers' <c>expires_in</c> says, in seconds: by default the tokens' <see cref="Lifetime"/>; a value of
    /// the test's (0 included); or null for an answer without it.
    /// </summary>
    public Func<double?> SaysExpiresIn { get; set; }

    /// <summary>How many token requests came, answered or not.</summary>
    public int Requests => Volatile.Read(ref _requests);

    /// <summary>The scope of the last request, if it had one.</summary>
    public string? LastScope { get; private set; }

    /// <summary>The last token issued.</summary>
    public string? LastToken { get; private set; }

    /// <summary>Whether the registry should accept this token now: issued here, not expired, not revoked.</summary>
    public bool IsValid(string token) => _issued.TryGetValue(token, out DateTime expires) && DateTime.UtcNow < expires;

    /// <summary>Whether this token has lapsed by the endpoint's clock.</summary>
    public bool HasExpired(string token) => !IsValid(token);

    /// <summary>Withdraws a token before its time, as an operator revoking a session does.</summary>
    public void Revoke(string token) => _issued.TryRemove(token, out _);

    /// <summary>Holds every answer back until <see cref="Release"/>.</summary>
    public void Hold() => Volatile.Write(ref _released, NewReleased(released: false));

    public void Release() => Volatile.Read(ref _released).TrySetResult();

    /// <summary>The next request (after those queued before) gets this answer instead of a token: an outage, a refusal, a page.</summary>
    public void AnswerNext(int status, string body, string contentType = "application/json") => _faults.Enqueue((status, contentType, body));

    public void Dispose()
    {
        Release();
        _listener.Close();
        _loop.Wait(TimeSpan.FromSeconds(10));
    }

    private static TaskCompletionSource NewReleased(bool released)
    {
        var source = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        if (released)
        {
            source.SetResult();
        }

        return source;
    }

    private async Task AnswerAsync(HttpListenerContext context)
    {
        Interlocked.Increment(ref _requests);
        try
        {
            string body;
            using (var reader = new StreamReader(context.Request.InputStream, Encoding.UTF8))
            {
                body = await reader.ReadToEndAsync();
            }

            await Volatile.Read(ref _released).Task.WaitAsync(TimeSpan.FromSeconds(30));
            if (_faults.TryDequeue(out (int Status, string ContentType, string Body) fault))
            {
                byte[] bytes = Encoding.UTF8.GetBytes(fault.Body);
                context.Response.StatusCode = fault.Status;
                context.Response.ContentType = fault.ContentType;
                context.Response.ContentLength64 = bytes.Length;
                await context.Response.OutputStream.WriteAsync(bytes);
                context.Response.Close();
                return;
            }

            var form = HttpUtility.ParseQueryString(body);
            LastScope = form["scope"];
            object answer;
            if (context.Request.HttpMethod != "POST" || form["grant_type"] != "client_credentials")
            {
                context.Response.StatusCode = 400;
                answer = new Dictionary<string, string> { ["error"] = "unsupported_grant_type" };
            }
            else if (form["client_id"] != _clientId || form["client_secret"] != _clientSecret)
            {
                context.Response.StatusCode = 401;
                answer = new Dictionary<string, string> { ["error"] = "invalid_client", ["error_description"] = "Client authentication failed." };
            }
            else
            {
                string token = "token-" + Interlocked.Increment(ref _tokens).ToString(CultureInfo.InvariantCulture) + "-" + Guid.NewGuid().ToString("N");
                _issued[token] = DateTime.UtcNow + Lifetime;
                LastToken = token;
                var granted = new Dictionary<string, object> { ["access_token"] = token, ["token_type"] = "Bearer" };
                if (SaysExpiresIn() is double seconds)
                {
                    granted["expires_in"] = seconds;
                }

                answer = granted;
            }

            byte[] json = JsonSerializer.SerializeToUtf8Bytes(answer);
            context.Response.ContentType = "application/json";
            context.Response.ContentLength64 = json.Length;
            await context.Response.OutputStream.WriteAsync(json);
            context.Response.Close();
        }
        catch (Exception e) when (e is HttpListenerException or ObjectDisposedException or IOException or InvalidOperationException or TimeoutException)
        {
            context.Response.Abort();
        }
    }
}
