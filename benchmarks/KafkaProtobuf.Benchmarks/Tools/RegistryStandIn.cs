using System;
using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;

namespace KafkaProtobuf.Benchmarks.Tools;

/// <summary>
/// A loopback HTTP stand-in for Schema Registry that answers the writer-schema lookup Confluent's deserializer makes
/// (<c>GET /schemas/ids/{id}</c>, or <c>/schemas/guids/{guid}</c> for header-framed records) with the benchmark's .proto. Its <c>CachedSchemaRegistryClient</c> caches the answer,
/// so after the first record this measures the client's per-record cost, not HTTP.
/// </summary>
public sealed class RegistryStandIn : IDisposable
{
    private readonly HttpListener _listener = new();
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _loop;
    private int _requests;

    public RegistryStandIn(string schema)
    {
        int port = FreeLoopbackPort();
        Url = $"http://127.0.0.1:{port}/";
        _listener.Prefixes.Add(Url);
        _listener.Start();
        byte[] body = Encoding.UTF8.GetBytes(JsonSerializer.Serialize(new { schema, schemaType = "PROTOBUF" }));
        _loop = Task.Run(() => Serve(body));
    }

    public string Url { get; }

    /// <summary>How many HTTP requests Confluent's client made.</summary>
    public int Requests => Volatile.Read(ref _requests);

    public void Dispose()
    {
        _stop.Cancel();
        _listener.Stop();
        _listener.Close();
        try
        {
            _loop.Wait(TimeSpan.FromSeconds(5));
        }
        catch (AggregateException)
        {
            // the listener was stopped under the loop
        }

        _stop.Dispose();
    }

    private async Task Serve(byte[] body)
    {
        while (!_stop.IsCancellationRequested)
        {
            HttpListenerContext context;
            try
            {
                context = await _listener.GetContextAsync().ConfigureAwait(false);
            }
            catch (Exception) when (_stop.IsCancellationRequested)
            {
                return;
            }

            Interlocked.Increment(ref _requests);
            string path = context.Request.Url?.AbsolutePath ?? string.Empty;
            bool schemaLookup = path.Contains("/schemas/ids/", StringComparison.Ordinal) || path.Contains("/schemas/guids/", StringComparison.Ordinal);
            context.Response.StatusCode = schemaLookup ? 200 : 404;
            context.Response.ContentType = "application/vnd.schemaregistry.v1+json";
            byte[] answer = schemaLookup ? body : Encoding.UTF8.GetBytes("{\"error_code\":40401,\"message\":\"not found\"}");
            await context.Response.OutputStream.WriteAsync(answer).ConfigureAwait(false);
            context.Response.Close();
        }
    }

    private static int FreeLoopbackPort()
    {
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        socket.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        return ((IPEndPoint)socket.LocalEndPoint!).Port;
    }
}
