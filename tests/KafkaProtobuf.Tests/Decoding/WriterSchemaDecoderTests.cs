using System;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf.Decoding;
using KafkaProtobuf.Fuzz;
using Vectors.Telemetry.V1;
using Xunit;

namespace KafkaProtobuf.Tests.Decoding;

/// <summary>
/// <see cref="WriterSchemaDecoder"/>, the decoding every front-end calls: each thing that can be wrong with a record,
/// answered with the library's code; a failing or silent source thrown as a dependency's failure, never as bad data.
/// Also run against the netstandard2.0 build (KafkaProtobuf.Tests.NetStandard).
/// </summary>
public sealed class WriterSchemaDecoderTests
{
    private static readonly SerializationContext Value = new(MessageComponentType.Value, "devices");

    private static byte[] Frame(int schemaId, byte[] path, IMessage message) => Frame(schemaId, path, message.ToByteArray());

    private static byte[] Frame(int schemaId, byte[] path, byte[] payload) =>
        [0, (byte)(schemaId >> 24), (byte)(schemaId >> 16), (byte)(schemaId >> 8), (byte)schemaId, .. path, .. payload];

    private static WriterSchemaDecoder Over(Func<SchemaIdentifier, FileDescriptor?> files, WriterSchemaDecoderOptions? options = null)
    {
        options ??= new WriterSchemaDecoderOptions();
        options.WriterSchemas.Source = new FunctionSchemaSource(files);
        return new(options);
    }

    [Fact]
    public async Task APathNamingAMapsEntryType_NamesNoMessage_AsForTheDeserializers()
    {
        // Device's labels map declares LabelsEntry, the first nested type: [1, 0].
        byte[] value = Frame(1, [0x04, 0x02, 0x00], [0x0a, 0x01, (byte)'k', 0x12, 0x01, (byte)'v']); // key "k", value "v"


        DecodedPart part = await Over(_ => TelemetryReflection.Descriptor).DecodeAsync(value, Value, CancellationToken.None);

        Assert.Equal(FrameErrorCode.UnknownMessageType, part.Error!.Value.Code);
        Assert.Null(part.Json);
        Assert.StartsWith("message-index path [1, 0] names no message of " + TelemetryReflection.Descriptor.Name, part.ErrorMessage, StringComparison.Ordinal);
        Assert.Throws<InvalidFrameException>(() => new FramedProtobufDeserializer<Device>(new FramedDeserializerOptions { WriterSchemas = { Source = new FunctionSchemaSource(_ => TelemetryReflection.Descriptor) } }).Deserialize(value, false, Value));
    }

    [Fact]
    public async Task EachKindOfBadData_IsAnsweredWithItsCodeAndOffset_NeverThrown()
    {
        WriterSchemaDecoder decoder = Over(id => id.Id == 7 ? null : TelemetryReflection.Descriptor);

        DecodedPart notFramed = await decoder.DecodeAsync("{\"id\":1}"u8.ToArray(), Value, CancellationToken.None);
        Assert.False(notFramed.IsFramed);
        Assert.Equal((FrameErrorCode.UnknownMagicByte, 0), (notFramed.Error!.Value.Code, notFramed.Error.Value.Offset));

        DecodedPart unknown = await decoder.DecodeAsync(Frame(7, [0x02, 0x02], new Device()), Value, CancellationToken.None);
        Assert.Equal(FrameErrorCode.UnknownSchemaId, unknown.Error!.Value.Code);
        Assert.Equal("schema id 7 is not known to the schema source", unknown.ErrorMessage);
        Assert.True(unknown.IsFramed);

        DecodedPart noType = await decoder.DecodeAsync(Frame(1, [0x02, 0x0e], new Device()), Value, CancellationToken.None);
        Assert.Equal(FrameErrorCode.UnknownMessageType, noType.Error!.Value.Code);

        DecodedPart notThatType = await decoder.DecodeAsync(Frame(1, [0x02, 0x02], new Device { Id = "d" }), Value, "vectors.telemetry.v1.Reading", CancellationToken.None);
        Assert.Equal(FrameErrorCode.UnexpectedMessageType, notThatType.Error!.Value.Code);
        Assert.Equal("vectors.telemetry.v1.Device", notThatType.WriterType!.FullName);

        byte[] truncated = Frame(1, [0x02, 0x02], new Device { Id = "device-with-a-long-id" });
        DecodedPart invalid = await decoder.DecodeAsync(truncated.AsMemory(0, truncated.Length - 3), Value, CancellationToken.None);
        Assert.Equal(FrameErrorCode.InvalidPayload, invalid.Error!.Value.Code);
        Assert.Equal(FrameErrorLocation.RecordData, invalid.Error.Value.Location);
        Assert.Equal(8, invalid.Error.Value.Offset); // the length of the payload's first field (its tag at 7), which runs past the end
        Assert.StartsWith("the payload is not a vectors.telemetry.v1.Device: ", invalid.ErrorMessage, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AnUnusableAnswer_IsBadData_AFailingOrSilentSource_IsADependencysFailure()
    {
        byte[] value = Frame(1, [0x00], new Reading { SensorId = "s" });
        var unusable = new WriterSchemaDecoder(ThrowingSource.Answering(id => throw new UnusableSchemaException(id, "an AVRO schema", null)));
        DecodedPart part = await unusable.DecodeAsync(value, Value, CancellationToken.None);
        Assert.Equal(FrameErrorCode.UnusableWriterSchema, part.Error!.Value.Code);
        Assert.Contains("an AVRO schema", part.ErrorMessage, StringComparison.Ordinal);

        var failing = new WriterSchemaDecoder(ThrowingSource.Answering(_ => throw new System.Net.Http.HttpRequestException("503")));
        SchemaUnavailableException outage = await Assert.ThrowsAsync<SchemaUnavailableException>(() => failing.DecodeAsync(value, Value, CancellationToken.None));
        Assert.IsType<System.Net.Http.HttpRequestException>(outage.InnerException);
        Assert.Equal(SchemaIdentifier.FromId(1), outage.SchemaId);

        // A source that never answers and ignores its token: given up on after the timeout, as an outage.
        var silent = new WriterSchemaDecoder(new WriterSchemaDecoderOptions { SchemaTimeout = TimeSpan.FromMilliseconds(50), WriterSchemas = { Source = new ThrowingSource(_ => new TaskCompletionSource<FileDescriptor?>().Task) } });
        SchemaUnavailableException timedOut = await Assert.ThrowsAsync<SchemaUnavailableException>(() => silent.DecodeAsync(value, Value, CancellationToken.None)).WaitAsync(TimeSpan.FromSeconds(60));
        Assert.IsType<TimeoutException>(timedOut.InnerException);

        using var cancelled = new CancellationTokenSource();
        cancelled.Cancel();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => silent.DecodeAsync(value, Value, cancelled.Token));
    }

    [Fact]
    public async Task TheSource_IsAskedOncePerIdentifier_AndNotAtAllWithoutOne()
    {
        int asked = 0;
        WriterSchemaDecoder decoder = Over(_ =>
        {
            Interlocked.Increment(ref asked);
            return TelemetryReflection.Descriptor;
        });
        byte[] value = Frame(3, [0x00], new Reading { SensorId = "s" });
        for (int i = 0; i < 5; i++)
        {
            Assert.False((await decoder.DecodeAsync(value, Value, CancellationToken.None)).IsBad);
        }

        Assert.Equal(1, asked);

        DecodedPart framingOnly = await new WriterSchemaDecoder().DecodeAsync(value, Value, CancellationToken.None);
        Assert.False(framingOnly.IsBad);
        Assert.Null(framingOnly.Json);
        Assert.Equal(SchemaIdentifier.FromId(3), framingOnly.SchemaId);
    }

    [Fact]
    public async Task PathsReadInEitherOrder_AsTheOptionsSay_AndAnAmbiguousOneIsRefused()
    {
        // nesting.proto: [0, 1] is Order.Shipment, [1, 0] Customer.Address.
        byte[] shipment = Frame(1, [0x04, 0x00, 0x02], new Vectors.Nesting.V1.Order.Types.Shipment());
        FileDescriptor nesting = Vectors.Nesting.V1.NestingReflection.Descriptor;
        DecodedPart rootFirst = await Over(_ => nesting).DecodeAsync(shipment, Value, CancellationToken.None);
        Assert.Equal("vectors.nesting.v1.Order.Shipment", rootFirst.WriterType!.FullName);
        Assert.Equal("vectors.nesting.v1.Customer.Address", rootFirst.OtherOrderType!.FullName);

        var innermost = new WriterSchemaDecoderOptions();
        innermost.Framing.MessageIndexOrder = MessageIndexOrder.InnermostFirst;
        Assert.Equal("vectors.nesting.v1.Customer.Address", (await Over(_ => nesting, innermost).DecodeAsync(shipment, Value, CancellationToken.None)).WriterType!.FullName);

        var either = new WriterSchemaDecoderOptions();
        either.Framing.MessageIndexOrder = MessageIndexOrder.EitherByWriterSchema;
        DecodedPart ambiguous = await Over(_ => nesting, either).DecodeAsync(shipment, Value, CancellationToken.None);
        Assert.Equal(FrameErrorCode.AmbiguousMessageIndexOrder, ambiguous.Error!.Value.Code);

        Assert.ThrowsAny<ArgumentException>(() => new WriterSchemaDecoder(new WriterSchemaDecoderOptions { WriterSchemas = { CacheCapacity = 0 } }));
        Assert.ThrowsAny<ArgumentException>(() => new WriterSchemaDecoder(new WriterSchemaDecoderOptions { SchemaTimeout = TimeSpan.Zero }));
    }

    /// <summary>A source whose answer is a function's, which may throw or never complete.</summary>
    private sealed class ThrowingSource(Func<SchemaIdentifier, Task<FileDescriptor?>> answer) : ISchemaFileSource
    {
        public static ThrowingSource Answering(Func<SchemaIdentifier, FileDescriptor?> answer) => new(id => Task.FromResult(answer(id)));

        public Task<FileDescriptor?> GetSchemaFileAsync(SchemaIdentifier schemaId, CancellationToken cancellationToken) => answer(schemaId);
    }
}
