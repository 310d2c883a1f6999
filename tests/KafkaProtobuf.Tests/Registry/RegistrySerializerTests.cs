using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.Framing;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tests.Support;
using Vectors.Telemetry.V1;
using Xunit;
using Writer = KafkaProtobuf.Tests.Shop.Writer;

namespace KafkaProtobuf.Tests.Registry;

/// <summary>
/// The registering serializer: Confluent's semantics (subjects, references, auto-register, latest version, GUIDs in
/// headers), byte-identical to Confluent's serializer for the same registry answers, and after the first record the
/// pinned serializer's cost.
/// </summary>
public sealed class RegistrySerializerTests : IDisposable
{
    private readonly InProcessSchemaRegistry _registry = InProcessSchemaRegistry.Start();

    public void Dispose() => _registry.Dispose();

    private RegistryClient Client() => new(_registry.Url);

    private static SerializationContext Value(string topic) => new(MessageComponentType.Value, topic, []);

    [Theory]
    [MemberData(nameof(ConfluentVector.Names), MemberType = typeof(ConfluentVector))]
    public void ForTheSameRegistryAnswer_TheBytesAreConfluents(string name)
    {
        ConfluentVector vector = ConfluentVector.ByName[name];
        using InProcessSchemaRegistry registry = InProcessSchemaRegistry.Start();
        registry.AssignNextSchema(vector.SchemaId ?? 1000, vector.SchemaGuid ?? Guid.NewGuid()); // what Confluent's registry answered
        using var client = new RegistryClient(registry.Url);
        var options = new RegistrySerializerOptions { SchemaIdPlacement = vector.Placement };
        var context = new SerializationContext(vector.Component, "telemetry", []);

        byte[] data = vector.Type switch
        {
            "vectors.telemetry.v1.Reading" => Serialize<Reading>(client, options, vector, context),
            "vectors.telemetry.v1.Device" => Serialize<Device>(client, options, vector, context),
            "vectors.telemetry.v1.Device.Location" => Serialize<Device.Types.Location>(client, options, vector, context),
            "vectors.telemetry.v1.Device.Firmware" => Serialize<Device.Types.Firmware>(client, options, vector, context),
            "vectors.telemetry.v1.Device.Firmware.Signature" => Serialize<Device.Types.Firmware.Types.Signature>(client, options, vector, context),
            _ => Serialize<Alert>(client, options, vector, context),
        };

        Assert.Equal(Convert.ToHexString(vector.Data), Convert.ToHexString(data));
        Assert.Equal(
            vector.Headers.Select(h => (h.Key, Convert.ToHexString(h.Value))),
            context.Headers.Select(h => (h.Key, Convert.ToHexString(h.GetValueBytes()))));
        // Registered under the component's subject, and only that one (a wrong subject used to pass for values).
        (string used, string other) = vector.Component == MessageComponentType.Key ? ("telemetry-key", "telemetry-value") : ("telemetry-value", "telemetry-key");
        Assert.Equal(1, registry.RequestCount("/subjects/" + used + "/versions"));
        Assert.Equal(0, registry.RequestCount("/subjects/" + other + "/versions"));
    }

    private static byte[] Serialize<T>(RegistryClient client, RegistrySerializerOptions options, ConfluentVector vector, SerializationContext context)
        where T : class, IMessage<T>, new()
    {
        T message = new MessageParser<T>(() => new T()).ParseFrom(vector.Payload);
        return new RegistryProtobufSerializer<T>(client, options).Serialize(message, context)!;
    }

    [Fact]
    public void FirstRecord_RegistersImportsAsReferencesFirst_SkippingWellKnownTypes()
    {
        using RegistryClient client = Client();
        var serializer = new RegistryProtobufSerializer<Writer.OrderPlaced>(client, null);
        byte[] record = serializer.Serialize(new Writer.OrderPlaced { OrderId = "o-1" }, Value("orders"))!;

        Assert.Equal(new byte[] { 0, 0, 0, 0, 2, 0 }, record[..6]); // schema id 2 (common.proto got 1), path [0]
        Assert.Equal(1, _registry.RequestCount("/subjects/shop%2Fv1%2Fcommon.proto/versions") + _registry.RequestCount("/subjects/shop/v1/common.proto/versions"));
        Assert.Equal(1, _registry.RequestCount("/subjects/orders-value/versions"));
        Assert.Equal(0, _registry.RequestCount("/subjects/google%2Fprotobuf%2Ftimestamp.proto/versions") + _registry.RequestCount("/subjects/google/protobuf/timestamp.proto/versions"));

        // Later records, other types of the file included, ask the registry nothing more per subject.
        int requests = _registry.TotalRequestCount;
        for (int i = 0; i < 100; i++)
        {
            serializer.Serialize(new Writer.OrderPlaced { OrderId = "o-" + i }, Value("orders"));
        }

        Assert.Equal(requests, _registry.TotalRequestCount);
    }

    [Fact]
    public void SkipKnownTypesOff_RegistersTimestampToo()
    {
        using RegistryClient client = Client();
        new RegistryProtobufSerializer<Writer.OrderPlaced>(client, new RegistrySerializerOptions { SkipKnownTypes = false }).Serialize(new Writer.OrderPlaced(), Value("orders"));
        Assert.Equal(1, _registry.RequestCount("/subjects/google%2Fprotobuf%2Ftimestamp.proto/versions") + _registry.RequestCount("/subjects/google/protobuf/timestamp.proto/versions"));
    }

    [Theory]
    [InlineData(SubjectNaming.Topic, "orders-value")]
    [InlineData(SubjectNaming.Record, "shop.v1.OrderShipped.Carrier")]
    [InlineData(SubjectNaming.TopicRecord, "orders-shop.v1.OrderShipped.Carrier")]
    public async Task SubjectNaming_NamesTheSubjectAsConfluentsStrategiesDo(SubjectNaming naming, string subject)
    {
        using RegistryClient client = Client();
        var serializer = new RegistryProtobufSerializer<Writer.OrderShipped.Types.Carrier>(client, new RegistrySerializerOptions { SubjectNaming = naming });
        Assert.Equal(subject, serializer.SubjectFor("orders", MessageComponentType.Value));
        SchemaIdentifier id = await serializer.WarmUpAsync("orders", MessageComponentType.Value);

        RegistrySchema latest = await client.GetLatestVersionAsync(subject);
        Assert.Equal(latest.Id, id.Id);
        byte[] record = serializer.Serialize(new Writer.OrderShipped.Types.Carrier { Name = "x" }, Value("orders"))!;
        Assert.Equal(new byte[] { 4, 2, 0 }, record[5..8]); // path [1, 0]: Carrier, nested in the second top-level message
    }

    [Fact]
    public async Task WarmUpAsync_Cancelled_StopsTheCallersWait_AndTheRegistrationGoesOnForTheRecords()
    {
        using RegistryClient client = Client();
        var serializer = new RegistryProtobufSerializer<Writer.OrderCancelled>(client, null);
        _registry.AddedLatency = TimeSpan.FromSeconds(2);
        using (var cancel = new CancellationTokenSource())
        {
            Task<SchemaIdentifier> warming = serializer.WarmUpAsync("orders", MessageComponentType.Value, cancel.Token);
            cancel.Cancel();
            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => warming.WaitAsync(TimeSpan.FromSeconds(60)));
        }

        _registry.AddedLatency = TimeSpan.Zero;
        SchemaIdentifier id = await serializer.WarmUpAsync("orders", MessageComponentType.Value).WaitAsync(TimeSpan.FromSeconds(60));
        Assert.Equal((await client.GetLatestVersionAsync("orders-value")).Id, id.Id);
    }

    [Fact]
    public async Task AutoRegisterOff_LooksUp_AndAnUnregisteredSchemaFailsWithTheRegistrysError()
    {
        using RegistryClient client = Client();
        var lookupOnly = new RegistryProtobufSerializer<Writer.OrderCancelled>(client, new RegistrySerializerOptions { AutoRegisterSchemas = false });
        SchemaRegistryRequestException e = Assert.Throws<SchemaRegistryRequestException>(() => lookupOnly.Serialize(new Writer.OrderCancelled(), Value("orders")));
        Assert.Equal(40401, e.ErrorCode); // common.proto's subject does not exist

        await new RegistryProtobufSerializer<Writer.OrderCancelled>(client, null).WarmUpAsync("orders", MessageComponentType.Value);
        Assert.Equal(new byte[] { 0, 0, 0, 0, 2, 2, 4 }, lookupOnly.Serialize(new Writer.OrderCancelled(), Value("orders"))![..7]); // now found: id 2, path [2]
    }

    [Fact]
    public async Task UseLatestVersion_WritesTheSubjectsLatestId_WithoutRegistering()
    {
        using RegistryClient client = Client();
        RegistrySchema common = await client.RegisterAsync("orders-value", Writer.CommonReflection.Descriptor.SerializedData.ToBase64(), "PROTOBUF", [], normalize: false);
        var latest = new RegistryProtobufSerializer<Writer.OrderPlaced>(client, new RegistrySerializerOptions { AutoRegisterSchemas = false, UseLatestVersion = true });

        byte[] record = latest.Serialize(new Writer.OrderPlaced(), Value("orders"))!;
        Assert.Equal(common.Id, SchemaIdentifier.FromId(record[4]).Id);
        Assert.Equal(0, _registry.RequestCount("/subjects/orders-value"));
        Assert.Throws<ArgumentException>(() => new RegistryProtobufSerializer<Writer.OrderPlaced>(client, new RegistrySerializerOptions { UseLatestVersion = true }));
    }

    [Fact]
    public async Task HeaderPlacement_WritesTheSchemaGuid()
    {
        using RegistryClient client = Client();
        var serializer = new RegistryProtobufSerializer<Writer.OrderPlaced>(client, new RegistrySerializerOptions { SchemaIdPlacement = SchemaIdPlacement.Header });
        SerializationContext context = Value("orders");
        byte[] payload = serializer.Serialize(new Writer.OrderPlaced { OrderId = "o" }, context)!;

        Assert.Equal(new Writer.OrderPlaced { OrderId = "o" }.ToByteArray(), payload);
        byte[] header = context.Headers.GetLastBytes(SchemaIdHeaderNames.Value);
        Guid guid = (await client.GetLatestVersionAsync("orders-value")).Guid!.Value;
        Assert.Equal(FrameWriter.ToSchemaIdAndIndexes(SchemaIdentifier.FromGuid(guid), [0], MessageIndexEncoding.ZigZag), header);
    }

    [Fact]
    public async Task ARegistryFailure_IsThrown_AndTheNextRecordTriesAgain()
    {
        using RegistryClient client = new(new RegistryClientOptions { Urls = { _registry.Url }, MaxRetries = 0 });
        var serializer = new RegistryProtobufSerializer<Writer.OrderCancelled>(client, null);
        _registry.FailNextRequests(1, 500);
        Assert.Equal(500, Assert.Throws<SchemaRegistryRequestException>(() => serializer.Serialize(new Writer.OrderCancelled(), Value("orders"))).StatusCode);
        Assert.NotNull(serializer.Serialize(new Writer.OrderCancelled(), Value("orders")));
        Assert.NotNull(await serializer.SerializeAsync(new Writer.OrderCancelled(), Value("orders")));
        Assert.Null(serializer.Serialize(null, Value("orders")));
    }

    [Fact]
    public void AfterTheFirstRecord_ItAllocatesWhatThePinnedSerializerAllocates()
    {
        using RegistryClient client = Client();
        var registered = new RegistryProtobufSerializer<Writer.OrderPlaced>(client, null);
        var message = new Writer.OrderPlaced { OrderId = "o-1", Total = new Writer.Money { Currency = "EUR", Units = 12 } };
        string topic = "orders";
        var context = new SerializationContext(MessageComponentType.Value, topic, []);
        SchemaIdentifier id = SchemaIdentifier.FromId(registered.Serialize(message, context)![4]);
        var pinned = new FramedProtobufSerializer<Writer.OrderPlaced>(id);

        Assert.Equal(pinned.Serialize(message, context), registered.Serialize(message, context));
        long expected = AllocationCounter.Least(() => Call(pinned, message, context), warmUps: 50, callsPerAttempt: 1000);
        Assert.Equal(expected, AllocationCounter.Least(() => Call(registered, message, context), warmUps: 50, callsPerAttempt: 1000));
    }

    // Both called the same way, so the JIT's inlining (and the escape analysis it enables) treats them alike.
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    private static byte[] Call(ISerializer<Writer.OrderPlaced> serializer, Writer.OrderPlaced message, SerializationContext context) =>
        serializer.Serialize(message, context);
}
