using System;
using System.Linq;
using System.Net.Sockets;
using System.Threading.Tasks;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tests.Support;
using Xunit;
using Writer = KafkaProtobuf.Tests.Shop.Writer;

namespace KafkaProtobuf.Tests.Registry;

/// <summary>The registry client against the in-process registry over HTTP on loopback: every endpoint, references, errors, retries, caching.</summary>
public sealed class RegistryClientTests : IDisposable
{
    private readonly InProcessSchemaRegistry _registry = InProcessSchemaRegistry.Start();

    public void Dispose() => _registry.Dispose();

    private RegistryClient Client(Action<RegistryClientOptions>? configure = null)
    {
        var options = new RegistryClientOptions { Urls = { _registry.Url }, RetryBackoff = TimeSpan.FromMilliseconds(10), MaxRetryBackoff = TimeSpan.FromMilliseconds(50) };
        configure?.Invoke(options);
        return new RegistryClient(options);
    }

    private static string Base64(FileDescriptor file) => file.SerializedData.ToBase64();

    /// <summary>Registers the order schema as Confluent's serializer does: common.proto first, as a reference; timestamp.proto skipped.</summary>
    private static async Task<RegistrySchema> RegisterOrders(RegistryClient client)
    {
        RegistrySchema common = await client.RegisterAsync("shop/v1/common.proto", Base64(Writer.CommonReflection.Descriptor), "PROTOBUF", [], normalize: false);
        return await client.RegisterAsync(
            "orders-value", Base64(Writer.OrdersReflection.Descriptor), "PROTOBUF", [new RegistryReference("shop/v1/common.proto", "shop/v1/common.proto", common.Version!.Value)], normalize: false);
    }

    [Fact]
    public async Task RegisterLookupAndGet_ByIdGuidSubjectAndVersion()
    {
        using RegistryClient client = Client();
        RegistrySchema registered = await RegisterOrders(client);
        Assert.Equal(2, registered.Id);
        Assert.Equal(1, registered.Version);
        Assert.NotNull(registered.Guid);

        RegistrySchema byId = await client.GetSchemaAsync(2);
        Assert.Equal("PROTOBUF", byId.SchemaType);
        Assert.Equal("shop/v1/common.proto", Assert.Single(byId.References).Name);
        Assert.Equal("default", FileDescriptorProto.Parser.ParseFrom(ByteString.FromBase64(byId.Schema)).Name);
        RegistrySchema byGuid = await client.GetSchemaByGuidAsync(registered.Guid!.Value);
        Assert.Equal(byId.Schema, byGuid.Schema);

        RegistrySchema version = await client.GetVersionAsync("orders-value", 1);
        Assert.Equal(2, version.Id);
        Assert.Equal("orders-value", version.Subject);
        Assert.Equal(2, (await client.GetLatestVersionAsync("orders-value")).Id);
        RegistrySchema lookedUp = await client.LookupAsync("orders-value", Base64(Writer.OrdersReflection.Descriptor), "PROTOBUF", byId.References, normalize: false);
        Assert.Equal(1, lookedUp.Version);
        Assert.True(await client.IsCompatibleAsync("orders-value", Base64(Writer.OrdersReflection.Descriptor), "PROTOBUF", byId.References));
    }

    [Fact]
    public async Task GetFile_ResolvesAUserImportAndAWellKnownType_IntoTheWritersFile()
    {
        using RegistryClient client = Client();
        RegistrySchema registered = await RegisterOrders(client);

        FileDescriptor file = await client.GetFileAsync(SchemaIdentifier.FromId(registered.Id!.Value));
        Assert.Equal(["OrderPlaced", "OrderShipped", "OrderCancelled"], file.MessageTypes.Select(m => m.Name));
        Assert.Equal(["google/protobuf/timestamp.proto", "shop/v1/common.proto"], file.Dependencies.Select(d => d.Name)); // named by import path, not "default"
        Assert.Equal("shop.v1.Money", file.MessageTypes[0].FindFieldByName("total").MessageType.FullName);
        FileDescriptor byGuid = await client.GetFileAsync(SchemaIdentifier.FromGuid(registered.Guid!.Value));
        Assert.Equal(file.MessageTypes.Select(m => m.FullName), byGuid.MessageTypes.Select(m => m.FullName));
    }

    [Fact]
    public async Task TheClientKeepsNoAnswers_EveryCallAsksTheRegistry()
    {
        // Caching is the deserializers' (WriterSchemaOptions.CacheCapacity): one owner, one capacity setting.
        using RegistryClient client = Client();
        int id = (await RegisterOrders(client)).Id!.Value;
        _registry.ResetRequestCounts();

        FileDescriptor first = await client.GetFileAsync(SchemaIdentifier.FromId(id));
        FileDescriptor second = await client.GetFileAsync(SchemaIdentifier.FromId(id));

        Assert.NotSame(first, second);
        Assert.Equal(2, _registry.RequestCount("/schemas/ids/" + id));
    }

    [Fact]
    public async Task AsASchemaSource_AnUnknownIdIsNull_AndAFailureThrows()
    {
        using RegistryClient client = Client(o => o.MaxRetries = 0);
        int id = (await RegisterOrders(client)).Id!.Value;
        ISchemaFileSource source = client;

        Assert.Equal(3, (await source.GetSchemaFileAsync(SchemaIdentifier.FromId(id), default))!.MessageTypes.Count);
        Assert.Null(await source.GetSchemaFileAsync(SchemaIdentifier.FromId(77), default)); // unknown: the record is bad data
        _registry.Stop();
        await Assert.ThrowsAsync<SchemaRegistryRequestException>(() => source.GetSchemaFileAsync(SchemaIdentifier.FromId(id), default)); // a failure, not "unknown"
    }

    [Fact]
    public async Task HundredConcurrentFirstLookups_MakeOneRequest()
    {
        using RegistryClient setup = Client();
        int id = (await RegisterOrders(setup)).Id!.Value;
        _registry.ResetRequestCounts();
        _registry.AddedLatency = TimeSpan.FromMilliseconds(200); // all hundred ask while the first request is out

        using RegistryClient client = Client();
        FileDescriptor[] files = await Task.WhenAll(Enumerable.Range(0, 100).Select(_ => Task.Run(() => client.GetFileAsync(SchemaIdentifier.FromId(id)))));

        Assert.Single(files.Distinct());
        Assert.Equal(1, _registry.RequestCount("/schemas/ids/" + id));
        Assert.Equal(1, _registry.RequestCount("/subjects/shop%2Fv1%2Fcommon.proto/versions/1") + _registry.RequestCount("/subjects/shop/v1/common.proto/versions/1"));
    }

    [Fact]
    public async Task Errors_CarryStatusRegistryCodeMessageAndUrl()
    {
        using RegistryClient client = Client();
        SchemaRegistryRequestException missing = await Assert.ThrowsAsync<SchemaRegistryRequestException>(() => client.GetSchemaAsync(42));
        Assert.Equal(404, missing.StatusCode);
        Assert.Equal(40403, missing.ErrorCode);
        Assert.True(missing.IsNotFound);
        Assert.Equal(_registry.Url + "/schemas/ids/42?format=serialized", missing.Url);
        Assert.Contains("Schema 42 not found", missing.Message, StringComparison.Ordinal);
        Assert.Equal(1, _registry.RequestCount("/schemas/ids/42")); // 4xx is not retried

        Assert.Equal(40401, (await Assert.ThrowsAsync<SchemaRegistryRequestException>(() => client.GetVersionAsync("nope", 1))).ErrorCode);
        await RegisterOrders(client);
        // The common file in place of the orders file: its messages are gone (MESSAGE_REMOVED), refused at BACKWARD.
        SchemaRegistryRequestException conflict = await Assert.ThrowsAsync<SchemaRegistryRequestException>(() =>
            client.RegisterAsync("orders-value", Base64(Writer.CommonReflection.Descriptor), "PROTOBUF", [], normalize: false));
        Assert.Equal(409, conflict.StatusCode);
        Assert.Equal(40901, conflict.ErrorCode);
    }

    [Fact]
    public async Task ServerErrors_AreRetriedWithBackoff_UpToMaxRetries()
    {
        using RegistryClient client = Client(o => o.MaxRetries = 2);
        await RegisterOrders(client);
        _registry.ResetRequestCounts();

        _registry.FailNextRequests(2, 503);
        Assert.Equal(1, (await client.GetVersionAsync("orders-value", 1)).Version);
        Assert.Equal(3, _registry.RequestCount("/subjects/orders-value/versions/1"));

        _registry.FailNextRequests(3, 429);
        SchemaRegistryRequestException e = await Assert.ThrowsAsync<SchemaRegistryRequestException>(() => client.GetSchemaAsync(2));
        Assert.Equal(429, e.StatusCode);
        Assert.Equal(42901, e.ErrorCode);
    }

    [Fact]
    public async Task AFailure_IsNotCached_TheNextCallAsksAgain()
    {
        using RegistryClient client = Client(o => o.MaxRetries = 0);
        int id = (await RegisterOrders(client)).Id!.Value;
        using RegistryClient reader = Client(o => o.MaxRetries = 0);
        _registry.Stop();

        SchemaRegistryRequestException down = await Assert.ThrowsAsync<SchemaRegistryRequestException>(() => reader.GetFileAsync(SchemaIdentifier.FromId(id)));
        Assert.Null(down.StatusCode);
        Assert.IsAssignableFrom<System.Net.Http.HttpRequestException>(down.InnerException);

        _registry.StartAgain();
        Assert.Equal(3, (await reader.GetFileAsync(SchemaIdentifier.FromId(id))).MessageTypes.Count);
    }

    [Fact]
    public async Task ASlowRegistry_TimesOutPerRequest_WithNoStatus()
    {
        // A timeout long enough for a request to reach the listener on a loaded machine (at 300 ms one could be cancelled
        // before it was sent, and the listener's count came short); the registry answers in 20 s, far past it.
        using RegistryClient client = Client(o => { o.RequestTimeout = TimeSpan.FromSeconds(1); o.MaxRetries = 1; });
        _registry.AddedLatency = TimeSpan.FromSeconds(20);

        SchemaRegistryRequestException e = await Assert.ThrowsAsync<SchemaRegistryRequestException>(() => client.GetSchemaAsync(1));
        Assert.Null(e.StatusCode);
        Assert.Contains("no answer within 1000 ms", e.Message, StringComparison.Ordinal);
        Assert.IsAssignableFrom<OperationCanceledException>(e.InnerException);
        Wait.Until(() => _registry.RequestCount("/schemas/ids/1") >= 2, "both attempts to reach the registry", TimeSpan.FromSeconds(30)); // counted as each arrives
        Assert.Equal(2, _registry.RequestCount("/schemas/ids/1"));
    }

    [Fact]
    public async Task SeveralUrls_AnUnreachableOneIsFollowedByTheNext()
    {
        var dead = new TcpListener(System.Net.IPAddress.Loopback, 0);
        dead.Start();
        int deadPort = ((System.Net.IPEndPoint)dead.LocalEndpoint).Port;
        dead.Stop(); // nothing listens there now

        using RegistryClient client = new(new RegistryClientOptions { Urls = { "127.0.0.1:" + deadPort, _registry.Url }, MaxRetries = 1, RetryBackoff = TimeSpan.Zero, MaxRetryBackoff = TimeSpan.Zero });
        Assert.Equal(1, (await RegisterOrders(client)).Version);
    }

    [Fact]
    public async Task BasicAndBearerAuthentication_AreSent()
    {
        _registry.RequireBasicAuth("API_KEY", "API_SECRET");
        using (RegistryClient anonymous = Client())
        {
            SchemaRegistryAuthenticationException e = await Assert.ThrowsAsync<SchemaRegistryAuthenticationException>(() => anonymous.GetSchemaAsync(1));
            Assert.Equal(401, e.StatusCode);
        }

        using (RegistryClient basic = Client(o => o.BasicAuthUserInfo = "API_KEY:API_SECRET"))
        {
            await RegisterOrders(basic);
            Assert.Equal("Basic QVBJX0tFWTpBUElfU0VDUkVU", _registry.AuthorizationHeaders.Last());
        }

        _registry.RequireBearerToken("token-1");
        using RegistryClient bearer = Client(o => o.BearerToken = _ => Task.FromResult("token-1"));
        Assert.Equal(2, (await bearer.GetSchemaAsync(2)).References.Count + 1);
        Assert.Equal("Bearer token-1", _registry.AuthorizationHeaders.Last());
    }

    [Fact]
    public async Task WarmingUpADeserializer_ByTheLatestVersionsId_LeavesItsRecordsNothingToAsk()
    {
        using RegistryClient setup = Client();
        int id = (await RegisterOrders(setup)).Id!.Value;
        using RegistryClient client = Client();
        var deserializer = new MultiTypeProtobufDeserializer([Writer.OrdersReflection.Descriptor], new MultiTypeDeserializerOptions { WriterSchemas = { Source = client } });

        int latest = (await client.GetLatestVersionAsync("orders-value")).Id!.Value;
        Assert.Empty(await deserializer.WarmUpAsync([SchemaIdentifier.FromId(latest)]));
        _registry.ResetRequestCounts();
        byte[] record = new FramedProtobufSerializer<Writer.OrderCancelled>(SchemaIdentifier.FromId(id)).Serialize(new Writer.OrderCancelled { OrderId = "o-1" }, default)!;

        Assert.IsType<Writer.OrderCancelled>(deserializer.Deserialize(record, false, new Confluent.Kafka.SerializationContext(Confluent.Kafka.MessageComponentType.Value, "orders")));
        Assert.Equal(0, _registry.TotalRequestCount);
    }

    [Fact]
    public void InvalidOptions_AreRejected()
    {
        Assert.Throws<ArgumentException>(() => new RegistryClient(new RegistryClientOptions()));
        Assert.Throws<ArgumentException>(() => new RegistryClient(new RegistryClientOptions { Urls = { _registry.Url }, BasicAuthUserInfo = "no-colon" }));
        Assert.Throws<ArgumentException>(() => new RegistryClient(new RegistryClientOptions { Urls = { _registry.Url }, BasicAuthUserInfo = "a:b", BearerToken = _ => Task.FromResult("t") }));
        Assert.Throws<ArgumentOutOfRangeException>(() => new RegistryClient(new RegistryClientOptions { Urls = { _registry.Url }, RequestTimeout = TimeSpan.Zero }));
    }
}
