using System;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Net.Sockets;
using System.Text;
using System.Text.Json;
using System.Threading.Tasks;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf.Testing;
using Xunit;

namespace KafkaProtobuf.Tests.Registry;

/// <summary>
/// The in-process registry spoken to over raw HTTP, as any client would: the calls Confluent's .NET, Java and Python
/// serdes and KafkaJS make, with the real registry's JSON shapes and error bodies.
/// </summary>
public sealed class InProcessSchemaRegistryTests : IDisposable
{
    private const string Json = "application/vnd.schemaregistry.v1+json";

    private readonly InProcessSchemaRegistry _registry = InProcessSchemaRegistry.Start();
    private readonly HttpClient _http = new() { Timeout = TimeSpan.FromSeconds(30) };

    public void Dispose()
    {
        _http.Dispose();
        _registry.Dispose();
    }

    private static string Serialized(FileDescriptor file) => file.SerializedData.ToBase64();

    private static string Body(string schema, string? schemaType = "PROTOBUF", string references = "[]") =>
        JsonSerializer.Serialize(new { schema, schemaType, references = JsonDocument.Parse(references).RootElement });

    private async Task<(HttpStatusCode Status, JsonElement Json)> Send(HttpMethod method, string path, string? body = null)
    {
        using var request = new HttpRequestMessage(method, _registry.Url + path);
        if (body is not null)
        {
            request.Content = new StringContent(body, Encoding.UTF8, Json);
        }

        using HttpResponseMessage response = await _http.SendAsync(request);
        Assert.Equal(Json, response.Content.Headers.ContentType?.MediaType);
        string text = await response.Content.ReadAsStringAsync();
        return (response.StatusCode, JsonDocument.Parse(text).RootElement.Clone());
    }

    private async Task<string> Text(string path) => await _http.GetStringAsync(_registry.Url + path);

    [Fact]
    public async Task Register_GivesSequentialIdsFromOne_AndAGuid_AndIsIdempotent()
    {
        (HttpStatusCode status, JsonElement first) = await Send(HttpMethod.Post, "/subjects/telemetry-value/versions?normalize=false", Body(Serialized(Google.Protobuf.WellKnownTypes.TimestampReflection.Descriptor)));
        Assert.Equal(HttpStatusCode.OK, status);
        Assert.Equal(1, first.GetProperty("id").GetInt32());
        Assert.Equal(1, first.GetProperty("version").GetInt32());
        Assert.True(Guid.TryParse(first.GetProperty("guid").GetString(), out _));
        Assert.Equal("PROTOBUF", first.GetProperty("schemaType").GetString());
        Assert.False(first.TryGetProperty("subject", out _)); // RegisterSchemaResponse has none

        (_, JsonElement again) = await Send(HttpMethod.Post, "/subjects/telemetry-value/versions", Body(Serialized(Google.Protobuf.WellKnownTypes.TimestampReflection.Descriptor)));
        Assert.Equal(1, again.GetProperty("id").GetInt32());
        Assert.Equal(first.GetProperty("guid").GetString(), again.GetProperty("guid").GetString());

        // The same schema in another subject keeps its id; another schema gets the next id.
        (_, JsonElement elsewhere) = await Send(HttpMethod.Post, "/subjects/other-value/versions", Body(Serialized(Google.Protobuf.WellKnownTypes.TimestampReflection.Descriptor)));
        Assert.Equal(1, elsewhere.GetProperty("id").GetInt32());
        // (compatible at BACKWARD, the default: a message added)
        const string WithAnotherMessage = "syntax = \"proto3\";\npackage google.protobuf;\nmessage Timestamp { int64 seconds = 1; int32 nanos = 2; }\nmessage Extra { string note = 1; }\n";
        (_, JsonElement second) = await Send(HttpMethod.Post, "/subjects/telemetry-value/versions", Body(WithAnotherMessage));
        Assert.Equal(2, second.GetProperty("id").GetInt32());
        Assert.Equal(2, second.GetProperty("version").GetInt32());
    }

    [Fact]
    public async Task SchemasById_AreProtoTextByDefault_AndASerializedDescriptorNamedDefaultOnRequest()
    {
        await Send(HttpMethod.Post, "/subjects/t/versions", Body(Serialized(Google.Protobuf.WellKnownTypes.TimestampReflection.Descriptor)));

        (_, JsonElement text) = await Send(HttpMethod.Get, "/schemas/ids/1");
        Assert.StartsWith("syntax = \"proto3\";\npackage google.protobuf;", text.GetProperty("schema").GetString(), StringComparison.Ordinal);
        Assert.Equal("PROTOBUF", text.GetProperty("schemaType").GetString());
        Assert.False(text.TryGetProperty("references", out _)); // empty lists are left out, as the registry does

        (_, JsonElement serialized) = await Send(HttpMethod.Get, "/schemas/ids/1?format=serialized");
        var descriptor = FileDescriptorProto.Parser.ParseFrom(Convert.FromBase64String(serialized.GetProperty("schema").GetString()!));
        Assert.Equal("default", descriptor.Name); // the real registry names every serialized file "default"
        Assert.Equal("Timestamp", descriptor.MessageType.Single().Name);

        (_, JsonElement withSubject) = await Send(HttpMethod.Get, "/schemas/ids/1?subject=t");
        Assert.Equal("t", withSubject.GetProperty("subject").GetString());
        Assert.Equal(1, withSubject.GetProperty("version").GetInt32());

        string guid = text.GetProperty("guid").GetString()!;
        (_, JsonElement byGuid) = await Send(HttpMethod.Get, "/schemas/guids/" + guid + "?format=serialized");
        Assert.Equal(serialized.GetProperty("schema").GetString(), byGuid.GetProperty("schema").GetString());
        Assert.StartsWith("syntax", await Text("/schemas/ids/1/schema"), StringComparison.Ordinal);
        Assert.Equal("[\"t\"]", (await Send(HttpMethod.Get, "/schemas/ids/1/subjects")).Json.GetRawText());
        Assert.Equal("[{\"subject\":\"t\",\"version\":1}]", (await Send(HttpMethod.Get, "/schemas/ids/1/versions")).Json.GetRawText());
    }

    [Fact]
    public async Task SubjectsVersionsAndLookup_HaveTheRegistrysShapes()
    {
        string schema = Body(Serialized(Google.Protobuf.WellKnownTypes.TimestampReflection.Descriptor));
        await Send(HttpMethod.Post, "/subjects/t/versions", schema);

        Assert.Equal("[\"t\"]", (await Send(HttpMethod.Get, "/subjects")).Json.GetRawText());
        Assert.Equal("[1]", (await Send(HttpMethod.Get, "/subjects/t/versions")).Json.GetRawText());
        (_, JsonElement latest) = await Send(HttpMethod.Get, "/subjects/t/versions/latest");
        Assert.Equal(["subject", "version", "id", "guid", "schemaType", "schema"], latest.EnumerateObject().Select(p => p.Name));
        (_, JsonElement found) = await Send(HttpMethod.Post, "/subjects/t?normalize=false&deleted=false", schema);
        Assert.Equal(1, found.GetProperty("id").GetInt32());
        Assert.Equal("t", found.GetProperty("subject").GetString());

        (HttpStatusCode notThere, JsonElement error) = await Send(HttpMethod.Post, "/subjects/t", Body(Serialized(Google.Protobuf.WellKnownTypes.DurationReflection.Descriptor)));
        Assert.Equal(HttpStatusCode.NotFound, notThere);
        Assert.Equal(40403, error.GetProperty("error_code").GetInt32());
        Assert.Equal(40401, (await Send(HttpMethod.Get, "/subjects/nope/versions/1")).Json.GetProperty("error_code").GetInt32());
        Assert.Equal(40402, (await Send(HttpMethod.Get, "/subjects/t/versions/9")).Json.GetProperty("error_code").GetInt32());
        Assert.Equal(42202, (await Send(HttpMethod.Get, "/subjects/t/versions/x")).Json.GetProperty("error_code").GetInt32());
        Assert.Equal(40403, (await Send(HttpMethod.Get, "/schemas/ids/99")).Json.GetProperty("error_code").GetInt32());
        Assert.Equal(404, (await Send(HttpMethod.Get, "/no/such/route")).Json.GetProperty("error_code").GetInt32());
    }

    [Fact]
    public async Task References_MustExist_AndAreServedBack()
    {
        string importing = Body(Serialized(Vectors.Telemetry.V1.TelemetryReflection.Descriptor), references: "[{\"name\":\"google/protobuf/timestamp.proto\",\"subject\":\"google/protobuf/timestamp.proto\",\"version\":1}]");
        (HttpStatusCode missing, JsonElement error) = await Send(HttpMethod.Post, "/subjects/telemetry-value/versions", importing);
        Assert.Equal((HttpStatusCode)422, missing);
        Assert.Equal(42201, error.GetProperty("error_code").GetInt32());

        await Send(HttpMethod.Post, "/subjects/google%2Fprotobuf%2Ftimestamp.proto/versions", Body(Serialized(Google.Protobuf.WellKnownTypes.TimestampReflection.Descriptor)));
        (_, JsonElement registered) = await Send(HttpMethod.Post, "/subjects/telemetry-value/versions", importing);
        Assert.Equal(2, registered.GetProperty("id").GetInt32());
        JsonElement reference = (await Send(HttpMethod.Get, "/schemas/ids/2")).Json.GetProperty("references").EnumerateArray().Single();
        Assert.Equal("google/protobuf/timestamp.proto", reference.GetProperty("subject").GetString());
        Assert.Equal("[2]", (await Send(HttpMethod.Get, "/subjects/google%2Fprotobuf%2Ftimestamp.proto/versions/1/referencedby")).Json.GetRawText());
    }

    [Fact]
    public async Task KafkaJsFirstRegistration_ConfigIs404ThenPut()
    {
        // @kafkajs/confluent-schema-registry: GET /config/{subject} (404 = first registration), register, PUT /config/{subject}.
        (HttpStatusCode status, JsonElement error) = await Send(HttpMethod.Get, "/config/orders-value");
        Assert.Equal(HttpStatusCode.NotFound, status);
        Assert.Equal(40408, error.GetProperty("error_code").GetInt32());
        Assert.Equal(1, (await Send(HttpMethod.Post, "/subjects/orders-value/versions", Body("syntax = \"proto3\";\nmessage Order { string id = 1; }\n"))).Json.GetProperty("id").GetInt32());
        Assert.Equal("{\"compatibility\":\"FULL\"}", (await Send(HttpMethod.Put, "/config/orders-value", "{\"compatibility\":\"FULL\"}")).Json.GetRawText());
        Assert.Equal("{\"compatibilityLevel\":\"FULL\"}", (await Send(HttpMethod.Get, "/config/orders-value")).Json.GetRawText());
        Assert.Equal("{\"compatibilityLevel\":\"BACKWARD\"}", (await Send(HttpMethod.Get, "/config")).Json.GetRawText());
        Assert.Equal(42203, (await Send(HttpMethod.Put, "/config", "{\"compatibility\":\"SOMETIMES\"}")).Json.GetProperty("error_code").GetInt32());

        // Text schemas are kept as text, and served serialized compiled (as the real registry parses them).
        Assert.StartsWith("syntax", (await Send(HttpMethod.Get, "/schemas/ids/1")).Json.GetProperty("schema").GetString(), StringComparison.Ordinal);
        var compiled = Google.Protobuf.Reflection.FileDescriptorProto.Parser.ParseFrom(Convert.FromBase64String((await Send(HttpMethod.Get, "/schemas/ids/1?format=serialized")).Json.GetProperty("schema").GetString()!));
        Assert.Equal("default", compiled.Name);
        Assert.Equal("Order", Assert.Single(compiled.MessageType).Name);
    }

    [Fact]
    public async Task ConfluentDotNetsCallsBeforeRegistering_AreAnswered()
    {
        // Confluent 2.15's serializer asks for associations first (its default subject strategy) and falls back to the topic strategy.
        Assert.Equal("[]", (await Send(HttpMethod.Get, "/associations/resources/-/orders?resourceType=topic&associationType=value")).Json.GetRawText());
        Assert.Equal("[\"AVRO\",\"JSON\",\"PROTOBUF\"]", (await Send(HttpMethod.Get, "/schemas/types")).Json.GetRawText());
        Assert.Equal("{\"mode\":\"READWRITE\"}", (await Send(HttpMethod.Get, "/mode")).Json.GetRawText());
        Assert.Equal("[\".\"]", (await Send(HttpMethod.Get, "/contexts")).Json.GetRawText());
    }

    [Fact]
    public async Task Deletes_AreSoftThenPermanent()
    {
        await Send(HttpMethod.Post, "/subjects/t/versions", Body(Serialized(Google.Protobuf.WellKnownTypes.TimestampReflection.Descriptor)));
        Assert.Equal("[1]", (await Send(HttpMethod.Delete, "/subjects/t")).Json.GetRawText());
        Assert.Equal("[]", (await Send(HttpMethod.Get, "/subjects")).Json.GetRawText());
        Assert.Equal("[\"t\"]", (await Send(HttpMethod.Get, "/subjects?deleted=true")).Json.GetRawText());
        Assert.Equal(1, (await Send(HttpMethod.Get, "/subjects/t/versions/1?deleted=true")).Json.GetProperty("version").GetInt32());
        Assert.Equal("[1]", (await Send(HttpMethod.Delete, "/subjects/t?permanent=true")).Json.GetRawText());
        Assert.Equal(HttpStatusCode.NotFound, (await Send(HttpMethod.Get, "/subjects/t/versions?deleted=true")).Status);
        Assert.Equal(HttpStatusCode.OK, (await Send(HttpMethod.Get, "/schemas/ids/1")).Status); // ids stay readable
    }

    [Fact]
    public async Task Faults_FailureStatusesLatencyStopAndStart_AndRequestCounts()
    {
        _registry.FailNextRequests(2, 503);
        (HttpStatusCode first, JsonElement error) = await Send(HttpMethod.Get, "/subjects");
        Assert.Equal(HttpStatusCode.ServiceUnavailable, first);
        Assert.Equal(50301, error.GetProperty("error_code").GetInt32());
        Assert.Equal(HttpStatusCode.ServiceUnavailable, (await Send(HttpMethod.Get, "/subjects")).Status);
        Assert.Equal(HttpStatusCode.OK, (await Send(HttpMethod.Get, "/subjects")).Status);
        Assert.Equal(3, _registry.RequestCount("/subjects"));

        _registry.AddedLatency = TimeSpan.FromSeconds(30);
        using (var impatient = new HttpClient { Timeout = TimeSpan.FromMilliseconds(200) })
        {
            await Assert.ThrowsAsync<TaskCanceledException>(() => impatient.GetAsync(_registry.Url + "/subjects"));
        }

        _registry.AddedLatency = TimeSpan.Zero;
        _registry.Stop();
        Assert.False(_registry.IsRunning);
        HttpRequestException refused = await Assert.ThrowsAsync<HttpRequestException>(() => _http.GetAsync(_registry.Url + "/subjects"));
        Assert.IsType<SocketException>(refused.InnerException);

        _registry.StartAgain();
        Assert.Equal(HttpStatusCode.OK, (await Send(HttpMethod.Get, "/subjects")).Status);
        _registry.ResetRequestCounts();
        Assert.Equal(0, _registry.TotalRequestCount);
    }

    [Fact]
    public async Task Stop_WhileAnAnswerIsHeldBack_ClosesThatRequestsConnectionUnanswered()
    {
        _registry.AddedLatency = TimeSpan.FromSeconds(30);
        Task<HttpResponseMessage> held = _http.GetAsync(_registry.Url + "/subjects");
        Tests.Support.Wait.Until(() => _registry.RequestCount("/subjects") == 1, "the request to reach the registry", TimeSpan.FromSeconds(20));

        _registry.Stop();

        // Not even a 503: an empty 200 (HttpListener's default status) once came this way and was read as the answer.
        await Assert.ThrowsAsync<HttpRequestException>(() => held.WaitAsync(TimeSpan.FromSeconds(20)));
    }

    [Fact]
    public async Task Stop_ClosesOpenConnections_SoAClientsPooledConnectionReachesNothing()
    {
        Assert.Equal(HttpStatusCode.OK, (await Send(HttpMethod.Get, "/subjects")).Status); // leaves a kept-alive connection in _http's pool

        _registry.Stop();

        await Assert.ThrowsAsync<HttpRequestException>(() => _http.GetAsync(_registry.Url + "/subjects"));
    }

    [Fact]
    public async Task StartAgain_WhileClientsKeepConnecting_ListensEveryTime()
    {
        // HttpListener on Linux throws from Start when a connection is already waiting as it begins to accept, and
        // leaves a socket on the port whose next connection crashes the process: clients retrying through an outage
        // are exactly that. The registry must come back every time, and answer.
        using var connecting = new System.Threading.CancellationTokenSource();
        Task[] clients = Enumerable.Range(0, 4).Select(_ => Task.Run(async () =>
        {
            while (!connecting.IsCancellationRequested)
            {
                using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
                try
                {
                    await socket.ConnectAsync(IPAddress.Loopback, _registry.Port, connecting.Token);
                }
                catch (Exception e) when (e is SocketException or OperationCanceledException)
                {
                }
            }
        })).ToArray();

        try
        {
            for (int cycle = 0; cycle < 300; cycle++)
            {
                _registry.Stop();
                _registry.StartAgain();
                Assert.True(_registry.IsRunning);
            }
        }
        finally
        {
            connecting.Cancel();
            await Task.WhenAll(clients).WaitAsync(TimeSpan.FromSeconds(30));
        }

        Assert.Equal(HttpStatusCode.OK, (await Send(HttpMethod.Get, "/subjects")).Status);
    }

    [Fact]
    public void StartAgain_WhenSomethingElseTookThePortMeanwhile_FailsNamingIt_InsteadOfLeavingClientsToIt()
    {
        _registry.Stop();
        using var other = new HttpListener();
        other.Prefixes.Add("http://127.0.0.1:" + _registry.Port + "/");
        other.Start();

        InvalidOperationException e = Assert.Throws<InvalidOperationException>(() => _registry.StartAgain());

        Assert.Contains("something else took port " + _registry.Port, e.Message, StringComparison.Ordinal);
        Assert.False(_registry.IsRunning);
    }

    [Fact]
    public async Task RequestHeaders_AreKeptForTheLastRequestsOnly()
    {
        int requests = InProcessSchemaRegistry.KeptRequests + 100;
        await Parallel.ForEachAsync(Enumerable.Range(0, requests), new ParallelOptions { MaxDegreeOfParallelism = 8 }, async (i, token) =>
        {
            using var request = new HttpRequestMessage(HttpMethod.Get, _registry.Url + "/subjects");
            request.Headers.Add("X-Request", i.ToString(System.Globalization.CultureInfo.InvariantCulture));
            using HttpResponseMessage response = await _http.SendAsync(request, token);
            response.EnsureSuccessStatusCode();
        });

        Assert.Equal(requests, _registry.RequestCount("/subjects"));
        Assert.Equal(InProcessSchemaRegistry.KeptRequests, _registry.AuthorizationHeaders.Count);
        Assert.Equal(InProcessSchemaRegistry.KeptRequests, _registry.HeaderValues("X-Request").Count);
    }

    [Fact]
    public async Task BasicAuth_WhenRequired_RefusesOthersWith401()
    {
        _registry.RequireBasicAuth("KEY", "SECRET");
        Assert.Equal(HttpStatusCode.Unauthorized, (await Send(HttpMethod.Get, "/subjects")).Status);
        using var request = new HttpRequestMessage(HttpMethod.Get, _registry.Url + "/subjects");
        request.Headers.Authorization = new System.Net.Http.Headers.AuthenticationHeaderValue("Basic", Convert.ToBase64String(Encoding.UTF8.GetBytes("KEY:SECRET")));
        using HttpResponseMessage response = await _http.SendAsync(request);
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal("Basic S0VZOlNFQ1JFVA==", _registry.AuthorizationHeaders.Last());
    }
}
