using System;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Streamiz;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tests.Support;
using Shop.V1;
using Streamiz.Kafka.Net;
using Streamiz.Kafka.Net.SerDes;
using Xunit;

namespace KafkaProtobuf.Tests.Streamiz;

/// <summary>The Streamiz serdes on their own, on a registry client: framing, tombstones, headers ignored, errors sorted for the handler.</summary>
public sealed class RegistryProtobufSerDesTests : IDisposable
{
    private static readonly OrderPlaced Order = new() { OrderId = "o-1", Customer = "ada", Lines = { new OrderPlaced.Types.Line { Sku = "tea", Quantity = 2, UnitPriceCents = 350 } } };

    private readonly InProcessSchemaRegistry _registry = InProcessSchemaRegistry.Start();
    private readonly RegistryClient _client;

    public RegistryProtobufSerDesTests() => _client = new RegistryClient(new RegistryClientOptions { Urls = { _registry.Url }, MaxRetries = 0 });

    public void Dispose()
    {
        _client.Dispose();
        _registry.Dispose();
    }

    private static SerializationContext Value(string topic, Headers? headers = null) => new(MessageComponentType.Value, topic, headers);

    [Fact]
    public void ARecord_IsWrittenAsTheRegistrySerializerWritesIt_AndReadBack()
    {
        var serdes = new RegistryProtobufSerDes<OrderPlaced>(_client);

        byte[] bytes = serdes.Serialize(Order, Value("orders"))!;

        Assert.Equal(new RegistryProtobufSerializer<OrderPlaced>(_client, null).Serialize(Order, Value("orders")), bytes);
        Assert.Equal(0, bytes[0]); // magic byte: the id is in the prefix
        Assert.Equal(Order, serdes.Deserialize(bytes, Value("orders")));
        Assert.Equal(Order, serdes.DeserializeObject(bytes, Value("orders")));
        Assert.Equal(bytes, serdes.SerializeObject(Order, Value("orders")));
    }

    [Fact]
    public void Warm_ItAllocatesWhatTheSerializerAndDeserializerAloneAllocate_TheBytesAndTheMessage()
    {
        var serdes = new RegistryProtobufSerDes<OrderPlaced>(_client);
        var serializer = new RegistryProtobufSerializer<OrderPlaced>(_client, null);
        var deserializer = new FramedProtobufDeserializer<OrderPlaced>(new FramedDeserializerOptions { VerifyWriterType = true, WriterSchemas = { Source = _client } });
        SerializationContext context = Value("orders");
        byte[] bytes = serdes.Serialize(Order, context)!;

        long written = AllocationCounter.Least(() => serdes.Serialize(Order, context), warmUps: 50, callsPerAttempt: 1000);
        long read = AllocationCounter.Least(() => serdes.Deserialize(bytes, context), warmUps: 50, callsPerAttempt: 1000);

        Assert.Equal(AllocationCounter.Least(() => serializer.Serialize(Order, context), warmUps: 50, callsPerAttempt: 1000), written);
        Assert.Equal(AllocationCounter.Least(() => deserializer.Deserialize(bytes, false, context), warmUps: 50, callsPerAttempt: 1000), read);
        Assert.Equal(AllocationCounter.Least(() => OrderPlaced.Parser.ParseFrom(bytes.AsSpan(7)), warmUps: 50, callsPerAttempt: 1000), read); // the message only (after magic, id and the path [1])
    }

    [Fact]
    public void Tombstones_AreNullBothWays()
    {
        var serdes = new RegistryProtobufSerDes<OrderPlaced>(_client);

        Assert.Null(serdes.Serialize(null, Value("orders")));
        Assert.Null(serdes.SerializeObject(null, Value("orders")));
        Assert.Null(serdes.Deserialize(null, Value("orders")));
        Assert.Null(((ISerDes<OrderPlaced>)serdes).Deserialize(null!, Value("orders"))); // as Streamiz calls it
        Assert.Equal(0, _registry.TotalRequestCount);
    }

    [Fact]
    public void AStoreValue_ReadUnderAnotherRecordsSchemaIdHeader_IsReadByItsPrefix()
    {
        var serdes = new RegistryProtobufSerDes<OrderPlaced>(_client);
        byte[] stored = serdes.Serialize(Order, Value("app-totals-changelog"))!;

        // Streamiz hands a store the headers of the record being processed: here one written with a GUID header.
        var headers = new Headers { { "__value_schema_id", [1, .. Guid.NewGuid().ToByteArray()] } };

        Assert.Equal(Order, serdes.Deserialize(stored, Value("app-totals-changelog", headers)));
    }

    [Fact]
    public void BadData_IsInvalidFrameException_WhichTheHandlerSkips()
    {
        var serdes = new RegistryProtobufSerDes<OrderPlaced>(_client);

        var e = Assert.Throws<InvalidFrameException>(() => serdes.Deserialize([7, 1, 2], Value("orders")));

        Assert.Equal(FrameErrorCode.UnknownMagicByte, e.ErrorCode);
        Assert.Equal(ExceptionHandlerResponse.CONTINUE, ProtobufDeserializationHandler.ContinueOnBadDataOnly(null!, null!, e));
    }

    [Fact]
    public void ARegistryOutage_IsSchemaUnavailable_WhichTheHandlerDoesNotSkip()
    {
        var serdes = new RegistryProtobufSerDes<OrderPlaced>(_client);
        byte[] bytes = serdes.Serialize(Order, Value("orders"))!;
        _registry.Stop();

        var e = Assert.Throws<SchemaUnavailableException>(() => new RegistryProtobufSerDes<OrderPlaced>(_client).Deserialize(bytes, Value("orders")));

        Assert.Equal(ExceptionHandlerResponse.FAIL, ProtobufDeserializationHandler.ContinueOnBadDataOnly(null!, null!, e));
        Assert.Equal(ExceptionHandlerResponse.FAIL, ProtobufDeserializationHandler.ContinueOnBadDataOnly(null!, null!, new InvalidOperationException()));
    }

    [Fact]
    public void WithoutInitializeOrAClient_ItSaysWhatIsMissing()
    {
        var serdes = new RegistryProtobufSerDes<OrderPlaced>();

        var e = Assert.Throws<InvalidOperationException>(() => serdes.Serialize(Order, Value("orders")));

        Assert.Contains("not initialized", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void HeaderPlacement_AndAnotherType_AreRefused()
    {
        Assert.Throws<ArgumentException>(() => new RegistryProtobufSerDes<OrderPlaced>(_client, new RegistrySerializerOptions { SchemaIdPlacement = SchemaIdPlacement.Header }));
        var serdes = new RegistryProtobufSerDes<OrderPlaced>(_client);
        Assert.Throws<InvalidOperationException>(() => serdes.SerializeObject(new OrderCancelled(), Value("orders")));
    }
}
