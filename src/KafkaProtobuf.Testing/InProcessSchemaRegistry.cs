using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Net;
using System.Net.Sockets;
using System.Security.Cryptography.X509Certificates;
using System.Text;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using KafkaProtobuf.Testing.SchemaRegistry;

namespace KafkaProtobuf.Testing;

/// <summary>
/// A Confluent Schema Registry inside the current process, over HTTP on a 127.0.0.1 port: for tests and samples of
/// code that registers and looks up schemas, with any client (this package's, Confluent's .NET, Java or Python serdes,
/// KafkaJS). It answers the REST calls those clients make, with the real registry's JSON shapes and error codes:
/// schemas by id and GUID (<c>format=serialized</c> or .proto text), subjects and versions, registration (ids from 1, a
/// GUID per schema, idempotent), lookup, references, compatibility (Protobuf schemas compared with Confluent's rules
/// at the subject's level, BACKWARD by default: an incompatible registration is refused with 409 and the registry's
/// messages), subject and global configuration, modes, contexts and (empty) associations.
/// </summary>
/// <remarks>
/// <para>
/// Faults on purpose: <see cref="AddedLatency"/>, <see cref="FailNextRequests"/>, <see cref="Stop"/> and
/// <see cref="StartAgain"/> (same port), and <see cref="RequestCount"/> per path. Dispose it when done.
/// </para>
/// <para>
/// Differences from the real registry: state is in memory; .proto text is compiled by protobuf-net.Reflection (what
/// Confluent's .NET serdes use), not by the registry's Java parser, so the two may disagree on exotic text; Avro and
/// JSON Schema registrations are stored but never compared (always compatible); the subject-level <c>normalize</c>
/// setting is not kept (the <c>normalize</c> query parameter is honoured); no contexts, tags, rules or metadata.
/// </para>
/// </remarks>
public sealed class InProcessSchemaRegistry : IDisposable
{
    private const string ContentType = "application/vnd.schemaregistry.v1+json";

    /// <summary>How many requests' headers are kept for <see cref="AuthorizationHeaders"/> and <see cref="HeaderValues"/>: the last 10,000.</summary>
    public const int KeptRequests = 10_000;

    // Ports of this process's registries until they are disposed, stopped ones included: Start never takes one, so
    // StartAgain finds its port free unless another process took it.
    private static readonly HashSet<int> ReservedPorts = [];

    // Time a stopped door gives an answer still being written before the listener behind it closes.
    private static readonly TimeSpan AnswersEndWithin = TimeSpan.FromSeconds(10);

    private readonly RegistryStore _store = new();
    private readonly object _lock = new();
    private readonly ConcurrentDictionary<string, int> _requestCounts = new(StringComparer.Ordinal);
    private readonly ConcurrentQueue<string> _authorizationHeaders = new();
    private readonly HttpListener _listener; // behind the doors, from Start to Dispose: never started while clients connect
    private readonly int _listenerPort;
    private readonly FrontDoor _door;
    private readonly Task _loop;
    private CancellationTokenSource _stopping = new();
    private int _serving; // requests being answered
    private int _failuresLeft;
    private int _failureStatus;
    private long _latencyTicks;
    private readonly ConcurrentQueue<KeyValuePair<string, string>[]> _headers = new(); // one array per request
    private Func<string, bool>? _authorize;
    private FrontDoor? _tlsDoor;
    private bool _disposed;

    private InProcessSchemaRegistry()
    {
        _listener = StartListener(out _listenerPort);
        _loop = Task.Run(() => AcceptLoop(_listener));
        _door = new FrontDoor(_listenerPort);
        _door.OpenOnFreePort(Reserve);
        Url = "http://127.0.0.1:" + Port.ToString(CultureInfo.InvariantCulture);
    }

    /// <summary>The registry's base URL, e.g. <c>http://127.0.0.1:40817</c>, or <c>https://127.0.0.1:40818</c> when started with <see cref="StartHttps"/>.</summary>
    public string Url { get; private set; }

    /// <summary>How many TLS handshakes failed on an HTTPS registry: clients that did not trust its certificate or did not show an accepted one of their own.</summary>
    public int FailedHandshakes => _tlsDoor?.FailedHandshakes ?? 0;

    /// <summary>The loopback port it serves plain HTTP on (kept across <see cref="Stop"/> and <see cref="StartAgain"/>).</summary>
    public int Port => _door.Port;

    /// <summary>Whether it is listening (from <see cref="Start"/> or <see cref="StartAgain"/> until <see cref="Stop"/>).</summary>
    public bool IsRunning => _door.IsOpen;

    /// <summary>A delay added before every answer (a slow registry); <see cref="TimeSpan.Zero"/> by default.</summary>
    public TimeSpan AddedLatency
    {
        get => TimeSpan.FromTicks(Interlocked.Read(ref _latencyTicks));
        set => Interlocked.Exchange(ref _latencyTicks, value < TimeSpan.Zero ? throw new ArgumentOutOfRangeException(nameof(value)) : value.Ticks);
    }

    /// <summary>The <c>Authorization</c> header of each request received, in order (empty strings for none); the last <see cref="KeptRequests"/>.</summary>
    public IReadOnlyCollection<string> AuthorizationHeaders => _authorizationHeaders.ToArray();

    /// <summary>Starts a registry on a free loopback port.</summary>
    /// <returns>The running registry.</returns>
    public static InProcessSchemaRegistry Start() => new();

    /// <summary>
    /// Starts a registry that serves HTTPS on a loopback port with this certificate (give it a subject alternative
    /// name of 127.0.0.1), and requires a client certificate issued by <paramref name="clientCertificateAuthority"/>
    /// when one is given (mutual TLS). <see cref="Url"/> is its https:// URL; <see cref="Stop"/> and
    /// <see cref="StartAgain"/> work as over HTTP.
    /// </summary>
    /// <param name="certificate">The server certificate, with its private key.</param>
    /// <param name="clientCertificateAuthority">The CA a client's certificate must chain to, or <see langword="null"/> for no client certificate.</param>
    /// <returns>The running registry.</returns>
    public static InProcessSchemaRegistry StartHttps(X509Certificate2 certificate, X509Certificate2? clientCertificateAuthority = null)
    {
        ArgumentNullException.ThrowIfNull(certificate);
        InProcessSchemaRegistry registry = Start();
        registry._tlsDoor = new FrontDoor(registry._listenerPort, certificate, clientCertificateAuthority);
        registry._tlsDoor.OpenOnFreePort(Reserve);
        registry.Url = "https://127.0.0.1:" + registry._tlsDoor.Port.ToString(CultureInfo.InvariantCulture);
        return registry;
    }

    /// <summary>
    /// Stops listening: connections are refused until <see cref="StartAgain"/>, and those open are closed, so a request
    /// in flight gets no answer. The schemas are kept.
    /// </summary>
    public void Stop()
    {
        _door.Close();
        _tlsDoor?.Close();
        lock (_lock)
        {
            _stopping.Cancel(); // answers held back by AddedLatency end now, to no one
        }
    }

    /// <summary>Listens again on the same port after <see cref="Stop"/>, with the same schemas.</summary>
    /// <exception cref="ObjectDisposedException">The registry was disposed.</exception>
    /// <exception cref="InvalidOperationException">
    /// Something else took the port while the registry was stopped (another process: this process's registries never
    /// take one another's): clients of <see cref="Url"/> would reach it, not this registry.
    /// </exception>
    public void StartAgain()
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        lock (_lock)
        {
            if (_stopping.IsCancellationRequested)
            {
                _stopping.Dispose();
                _stopping = new CancellationTokenSource();
            }
        }

        foreach (FrontDoor door in Doors())
        {
            try
            {
                door.OpenAgain();
            }
            catch (SocketException e)
            {
                Stop();
                throw new InvalidOperationException(
                    "The in-process registry cannot listen on 127.0.0.1:" + door.Port.ToString(CultureInfo.InvariantCulture) + " again: something else took port "
                    + door.Port.ToString(CultureInfo.InvariantCulture) + " while it was stopped, and clients of that URL would reach it instead (" + e.Message + ").",
                    e);
            }
        }
    }

    /// <summary>Makes the next <paramref name="count"/> requests fail with <paramref name="status"/> (e.g. 500, 503, 429) and a JSON error body.</summary>
    /// <param name="count">How many, at least 1.</param>
    /// <param name="status">An HTTP status from 400 to 599.</param>
    public void FailNextRequests(int count, int status)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(count, 1);
        if (status is < 400 or > 599)
        {
            throw new ArgumentOutOfRangeException(nameof(status), status, "An error status, 400 to 599.");
        }

        lock (_lock)
        {
            _failuresLeft = count;
            _failureStatus = status;
        }
    }

    /// <summary>
    /// Gives the next schema registered that the registry does not know yet this id and GUID, instead of the next in
    /// sequence (as a registry in import mode takes them): to reproduce records another registry's ids were written with.
    /// </summary>
    /// <param name="id">An id not in use, at least 1.</param>
    /// <param name="schemaGuid">A GUID not in use.</param>
    /// <exception cref="ArgumentException">The id or GUID is in use, or the id is not positive.</exception>
    public void AssignNextSchema(int id, Guid schemaGuid)
    {
        lock (_lock)
        {
            _store.AssignNext(id, schemaGuid);
        }
    }

    /// <summary>Requires HTTP basic authentication with these credentials (401 otherwise), as Confluent Cloud does with an API key.</summary>
    /// <param name="user">The user (API key).</param>
    /// <param name="password">The password (API secret).</param>
    public void RequireBasicAuth(string user, string password)
    {
        string required = "Basic " + Convert.ToBase64String(Encoding.UTF8.GetBytes(user + ":" + password));
        Volatile.Write(ref _authorize, header => header == required);
    }

    /// <summary>Requires this bearer token (401 otherwise).</summary>
    /// <param name="token">The token.</param>
    public void RequireBearerToken(string token) => RequireBearerToken(given => given == token);

    /// <summary>Requires a bearer token this callback accepts, e.g. one an OAuth test endpoint issued and has not seen expire (401 otherwise).</summary>
    /// <param name="isValid">Whether a token is valid now; called for every request, from several threads.</param>
    public void RequireBearerToken(Func<string, bool> isValid)
    {
        ArgumentNullException.ThrowIfNull(isValid);
        Volatile.Write(ref _authorize, header => header.StartsWith("Bearer ", StringComparison.Ordinal) && isValid(header.Substring("Bearer ".Length)));
    }

    /// <summary>Every value a request header of this name had, in the order the requests came (e.g. Confluent Cloud's <c>target-sr-cluster</c>), over the last <see cref="KeptRequests"/> requests.</summary>
    /// <param name="name">The header's name, any case.</param>
    /// <returns>The values.</returns>
    public IReadOnlyList<string> HeaderValues(string name) =>
        _headers.SelectMany(request => request).Where(h => string.Equals(h.Key, name, StringComparison.OrdinalIgnoreCase)).Select(h => h.Value).ToArray();

    /// <summary>How many requests were received for a path (without the query), e.g. <c>/schemas/ids/1</c>, any method.</summary>
    /// <param name="path">The path, starting with <c>/</c>.</param>
    /// <returns>The count.</returns>
    public int RequestCount(string path) => _requestCounts.TryGetValue(path, out int count) ? count : 0;

    /// <summary>How many requests were received in all.</summary>
    public int TotalRequestCount => _requestCounts.Values.Sum();

    /// <summary>Starts the request counts from zero.</summary>
    public void ResetRequestCounts() => _requestCounts.Clear();

    /// <summary>Stops the registry and frees its port.</summary>
    public void Dispose()
    {
        if (_disposed)
        {
            return;
        }

        _disposed = true;
        Stop();
        SpinWait.SpinUntil(() => Volatile.Read(ref _serving) == 0, AnswersEndWithin);
        _listener.Close();
        _loop.Wait(AnswersEndWithin);
        lock (ReservedPorts)
        {
            foreach (FrontDoor door in Doors())
            {
                ReservedPorts.Remove(door.Port);
            }

            ReservedPorts.Remove(_listenerPort);
        }
    }

    private IEnumerable<FrontDoor> Doors() => _tlsDoor is null ? [_door] : [_door, _tlsDoor];

    private static bool Reserve(int port)
    {
        lock (ReservedPorts)
        {
            return ReservedPorts.Add(port);
        }
    }

    /// <summary>A loopback port free now and held by none of this process's registries, reserved for the new one.</summary>
    private static int FreePort()
    {
        while (true)
        {
            var probe = new TcpListener(IPAddress.Loopback, 0);
            probe.Start();
            int port = ((IPEndPoint)probe.LocalEndpoint).Port;
            probe.Stop();
            lock (ReservedPorts)
            {
                if (ReservedPorts.Add(port))
                {
                    return port;
                }
            }
        }
    }

    /// <summary>The HTTP listener behind the doors, on a port no client is told of.</summary>
    private static HttpListener StartListener(out int port)
    {
        for (int attempt = 0; ; attempt++)
        {
            port = FreePort();
            var listener = new HttpListener();
            listener.Prefixes.Add("http://127.0.0.1:" + port.ToString(CultureInfo.InvariantCulture) + "/");
            try
            {
                listener.Start();
                return listener;
            }
            catch (HttpListenerException) when (attempt < 10)
            {
                listener.Close(); // the port was taken between probing and listening; try another
                lock (ReservedPorts)
                {
                    ReservedPorts.Remove(port);
                }
            }
        }
    }

    private async Task AcceptLoop(HttpListener listener)
    {
        while (listener.IsListening)
        {
            HttpListenerContext context;
            try
            {
                context = await listener.GetContextAsync().ConfigureAwait(false);
            }
            catch (Exception e) when (e is HttpListenerException or ObjectDisposedException or InvalidOperationException)
            {
                return; // stopped
            }

            Interlocked.Increment(ref _serving);
            _ = Task.Run(() => ServeAsync(context));
        }
    }

    private async Task ServeAsync(HttpListenerContext context)
    {
        try
        {
            await AnswerAsync(context).ConfigureAwait(false);
        }
        finally
        {
            Interlocked.Decrement(ref _serving);
        }
    }

    private async Task AnswerAsync(HttpListenerContext context)
    {
        HttpListenerRequest request = context.Request;
        HttpListenerResponse response = context.Response;
        string path = request.Url!.AbsolutePath;
        _requestCounts.AddOrUpdate(path, 1, (_, count) => count + 1);
        string authorization = request.Headers["Authorization"] ?? string.Empty;
        Keep(_authorizationHeaders, authorization);
        Keep(_headers, request.Headers.AllKeys
            .Where(name => name is not null && !string.Equals(name, "Authorization", StringComparison.OrdinalIgnoreCase))
            .Select(name => new KeyValuePair<string, string>(name!, request.Headers[name] ?? string.Empty))
            .ToArray());

        try
        {
            TimeSpan latency = AddedLatency;
            if (latency > TimeSpan.Zero)
            {
                CancellationToken stopping;
                lock (_lock)
                {
                    stopping = _stopping.Token;
                }

                await Task.Delay(latency, stopping).ConfigureAwait(false);
            }

            string body;
            using (var reader = new StreamReader(request.InputStream, Encoding.UTF8))
            {
                body = await reader.ReadToEndAsync().ConfigureAwait(false);
            }

            (int status, byte[] content) = Answer(request.HttpMethod, path, request.QueryString, body, authorization);
            response.StatusCode = status;
            response.ContentType = ContentType;
            response.ContentLength64 = content.Length;
            await response.OutputStream.WriteAsync(content).ConfigureAwait(false);
            response.Close();
        }
        catch (Exception e) when (e is HttpListenerException or ObjectDisposedException or IOException or InvalidOperationException or OperationCanceledException)
        {
            // The client went away, or the registry was stopped mid-answer. Where HttpListener is managed code (Linux,
            // macOS), Abort still sends a status line if none went yet: let it be an outage's, not the 200 it defaults to.
            try
            {
                response.StatusCode = 503;
            }
            catch (Exception headersSent) when (headersSent is InvalidOperationException or ObjectDisposedException)
            {
            }

            response.Abort();
        }
    }

    /// <summary>Adds a request's entry, dropping the oldest past <see cref="KeptRequests"/>, so that a registry that serves for long keeps a bounded record.</summary>
    private static void Keep<T>(ConcurrentQueue<T> kept, T entry)
    {
        kept.Enqueue(entry);
        while (kept.Count > KeptRequests && kept.TryDequeue(out _))
        {
        }
    }

    private (int Status, byte[] Content) Answer(string method, string path, System.Collections.Specialized.NameValueCollection query, string body, string authorization)
    {
        lock (_lock)
        {
            if (_failuresLeft > 0)
            {
                _failuresLeft--;
                return Error(new RegistryError(_failureStatus, _failureStatus * 100 + 1, "Injected failure " + _failureStatus.ToString(CultureInfo.InvariantCulture)));
            }
        }

        Func<string, bool>? authorize = Volatile.Read(ref _authorize);
        if (authorize is not null && !authorize(authorization))
        {
            return Error(new RegistryError(401, 40101, "Unauthorized"));
        }

        try
        {
            string[] segments = path.Trim('/').Split('/', StringSplitOptions.RemoveEmptyEntries).Select(Uri.UnescapeDataString).ToArray();
            lock (_lock)
            {
                return RegistryRoutes.Route(_store, method, segments, query, body);
            }
        }
        catch (RegistryError e)
        {
            return Error(e);
        }
        catch (Exception e) when (e is JsonException or KeyNotFoundException or InvalidOperationException or FormatException)
        {
            // Not JSON, or JSON without a field the request needs or with one of the wrong kind (a number for a name).
            return Error(new RegistryError(422, 42201, "Invalid request body: " + e.Message));
        }
        catch (Exception e) when (e is not OutOfMemoryException)
        {
            // Whatever else one request brings about is that request's 500, never an outage of the registry.
            return Error(new RegistryError(500, 50001, "Internal error: " + e.GetType().Name + ": " + e.Message));
        }
    }

    private static (int, byte[]) Error(RegistryError error) => (error.Status, RegistryJson.Write(w =>
    {
        w.WriteStartObject();
        w.WriteNumber("error_code", error.ErrorCode);
        w.WriteString("message", error.Message);
        w.WriteEndObject();
    }));
}
