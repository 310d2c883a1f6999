using System;
using System.Collections.Concurrent;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Net;
using System.Text;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using Google.Protobuf.Reflection;

namespace KafkaProtobuf.Tests.Support;

/// <summary>
/// A schema registry on loopback that answers each path as the test scripted it: status, content type and body, so that
/// a test can be a broken or hostile registry (an Avro schema where Protobuf is expected, JSON that is no schema, a
/// proxy's HTML page, an answer of any size). Paths are matched without their query; an unscripted one answers as the
/// registry does for an unknown schema (404, 40403). Counts requests per path.
/// </summary>
public sealed class ScriptedRegistry : IDisposable
{
    private readonly HttpListener _listener;
    private readonly ConcurrentDictionary<string, Answer> _answers = new(StringComparer.Ordinal);
    private readonly ConcurrentDictionary<string, int> _requests = new(StringComparer.Ordinal);
    private readonly Task _loop;

    public ScriptedRegistry()
    {
        _listener = LoopbackListener.Start(out string url);
        Url = url;
        _loop = Task.Run(() => LoopbackListener.Serve(_listener, AnswerAsync));
    }

    public string Url { get; }

    /// <summary>A JSON body in the registry's content type.</summary>
    public void Json(string path, int status, string json) => Raw(path, status, "application/vnd.schemaregistry.v1+json", Encoding.UTF8.GetBytes(json));

    /// <summary>Any answer.</summary>
    /// <param name="path">The path, e.g. <c>/schemas/ids/3</c>.</param>
    /// <param name="status">The HTTP status.</param>
    /// <param name="contentType">The content type, or none.</param>
    /// <param name="body">The body.</param>
    /// <param name="declaredLength">A Content-Length to declare instead of the body's (the connection is then cut after the body).</param>
    public void Raw(string path, int status, string? contentType, byte[] body, long? declaredLength = null) =>
        _answers[path] = new Answer(status, contentType, body, declaredLength);

    /// <summary>A schema by id, as <c>GET /schemas/ids/{id}?format=serialized</c> answers it.</summary>
    public void Schema(int id, string schemaType, string schema, params (string Name, string Subject, int Version)[] references) =>
        Json("/schemas/ids/" + id.ToString(CultureInfo.InvariantCulture), 200, SchemaJson(schemaType, schema, references));

    /// <summary>A Protobuf file by id, serialized as the registry does (named <c>default</c>).</summary>
    public void Schema(int id, FileDescriptorProto file, params (string Name, string Subject, int Version)[] references) =>
        Schema(id, "PROTOBUF", Serialized(file), references);

    /// <summary>A subject's version, as <c>GET /subjects/{subject}/versions/{version}</c> answers it (references are fetched so).</summary>
    public void Version(string subject, int version, FileDescriptorProto file, params (string Name, string Subject, int Version)[] references) =>
        Json("/subjects/" + subject + "/versions/" + version.ToString(CultureInfo.InvariantCulture), 200, SchemaJson("PROTOBUF", Serialized(file), references));

    /// <summary>A registry error: status, error code, message.</summary>
    public void Error(string path, int status, int errorCode, string message) =>
        Json(path, status, JsonSerializer.Serialize(new { error_code = errorCode, message }));

    public int RequestCount(string path) => _requests.TryGetValue(path, out int count) ? count : 0;

    public int TotalRequestCount => _requests.Values.Sum();

    public void Dispose()
    {
        _listener.Close();
        _loop.Wait(TimeSpan.FromSeconds(10));
    }

    /// <summary>A file's descriptor in base64, named <c>default</c> as the registry answers <c>format=serialized</c>.</summary>
    public static string Serialized(FileDescriptorProto file)
    {
        FileDescriptorProto copy = file.Clone();
        copy.Name = "default";
        return Convert.ToBase64String(Google.Protobuf.MessageExtensions.ToByteArray(copy));
    }

    private static string SchemaJson(string schemaType, string schema, (string Name, string Subject, int Version)[] references) =>
        JsonSerializer.Serialize(new
        {
            schemaType,
            schema,
            references = references.Select(r => new { name = r.Name, subject = r.Subject, version = r.Version }).ToArray(),
        });

    private async Task AnswerAsync(HttpListenerContext context)
    {
        string path = context.Request.Url!.AbsolutePath;
        _requests.AddOrUpdate(path, 1, (_, count) => count + 1);
        Answer answer = _answers.TryGetValue(path, out Answer? scripted)
            ? scripted
            : new Answer(404, "application/vnd.schemaregistry.v1+json", Encoding.UTF8.GetBytes("{\"error_code\":40403,\"message\":\"Schema not found\"}"), null);
        try
        {
            context.Response.StatusCode = answer.Status;
            if (answer.ContentType is not null)
            {
                context.Response.ContentType = answer.ContentType;
            }

            context.Response.ContentLength64 = answer.DeclaredLength ?? answer.Body.Length;
            await context.Response.OutputStream.WriteAsync(answer.Body);
            if (answer.DeclaredLength is not null)
            {
                context.Response.Abort(); // less than declared: the client must not wait for the rest
                return;
            }

            context.Response.Close();
        }
        catch (Exception e) when (e is HttpListenerException or ObjectDisposedException or IOException or InvalidOperationException)
        {
            context.Response.Abort();
        }
    }

    private sealed record Answer(int Status, string? ContentType, byte[] Body, long? DeclaredLength);
}
