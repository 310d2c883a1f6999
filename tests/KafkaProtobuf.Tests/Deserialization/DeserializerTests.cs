using System;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.Framing;
using KafkaProtobuf.Tests.Support;
using Vectors.Telemetry.V1;
using Xunit;
using static KafkaProtobuf.Tests.Support.Hex;

namespace KafkaProtobuf.Tests.Deserialization;

public class DeserializerTests
{
    private static readonly FramedProtobufDeserializer<Reading> Readings = new();
    private static readonly Reading Sample = new() { SensorId = "s-1", Value = 21.5, Samples = { 1, 2, 3 } };
    private static readonly byte[] SamplePayload = Sample.ToByteArray();
    private static readonly byte[] SampleFrame = [.. Bytes("00 0000002a 00"), .. SamplePayload];

    private static SerializationContext Value(Headers? headers = null) => new(MessageComponentType.Value, "readings", headers ?? []);

    private static SerializationContext Key(Headers? headers = null) => new(MessageComponentType.Key, "readings", headers ?? []);

    [Fact]
    public void PrefixedFrame_DeserializesToTheMessage() =>
        Assert.Equal(Sample, Readings.Deserialize(SampleFrame, isNull: false, Value()));

    [Theory]
    [InlineData(MessageComponentType.Key)]
    [InlineData(MessageComponentType.Value)]
    public void Tombstone_IsNull(MessageComponentType component)
    {
        var context = new SerializationContext(component, "readings", []);
        Assert.Null(Readings.Deserialize(ReadOnlySpan<byte>.Empty, isNull: true, context));
        Assert.Null(((IDeserializer<Reading>)Readings).Deserialize(ReadOnlySpan<byte>.Empty, isNull: true, context));
    }

    [Fact]
    public async Task Tombstone_IsACompletedNullTask()
    {
        Task<Reading?> task = Readings.DeserializeAsync(ReadOnlyMemory<byte>.Empty, isNull: true, Value());
        Assert.True(task.IsCompletedSuccessfully);
        Assert.Null(await task);
    }

    [Fact]
    public async Task AsyncDeserializer_ReturnsAnAlreadyCompletedTask()
    {
        Task<Reading> task = ((IAsyncDeserializer<Reading>)Readings).DeserializeAsync(SampleFrame, isNull: false, Value());
        Assert.True(task.IsCompletedSuccessfully);
        Assert.Equal(Sample, await task);
    }

    [Fact]
    public void EmptyPayload_IsTheAllDefaultMessage() =>
        Assert.Equal(new Reading(), Readings.Deserialize(Bytes("00 0000002a 00"), isNull: false, Value()));

    [Fact]
    public void PayloadTheParserRejects_IsInvalidPayloadWithTheParserExceptionInside()
    {
        // Field 1, length-delimited, claims 5 bytes but 1 follows.
        byte[] frame = Bytes("00 0000002a 00 0a 05 61");
        InvalidFrameException e = Assert.Throws<InvalidFrameException>(() => Readings.Deserialize(frame, isNull: false, Value()));

        Assert.Equal(FrameErrorCode.InvalidPayload, e.ErrorCode);
        Assert.Equal(6, e.Offset);
        Assert.Equal(FrameErrorLocation.RecordData, e.Location);
        Assert.Equal(SchemaIdentifier.FromId(42), e.SchemaId);
        Assert.Equal(MessageComponentType.Value, e.Component);
        Assert.Equal("readings", e.Topic);
        Assert.IsType<InvalidProtocolBufferException>(e.InnerException);
        Assert.Contains(e.InnerException.Message, e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void PayloadTheParserRejects_FaultsTheAsyncTask()
    {
        Task<Reading?> task = Readings.DeserializeAsync(Bytes("00 0000002a 00 0a 05 61"), isNull: false, Value());
        Assert.True(task.IsFaulted);
        InvalidFrameException e = Assert.IsType<InvalidFrameException>(task.Exception!.InnerException);
        Assert.Equal(FrameErrorCode.InvalidPayload, e.ErrorCode);
    }

    [Fact]
    public void PayloadTheParserRejects_WithHeaderId_PointsAtTheRecordStart()
    {
        var headers = new Headers { { SchemaIdHeaderNames.Value, Bytes("00 00000007 00") } };
        InvalidFrameException e = Assert.Throws<InvalidFrameException>(() => Readings.Deserialize(Bytes("0a 05 61"), false, Value(headers)));
        Assert.Equal(new FrameError(FrameErrorCode.InvalidPayload, 0, FrameErrorLocation.RecordData, SchemaIdentifier.FromId(7)), e.Error);
    }

    [Fact]
    public void DeeplyNestedPayload_HitsTheParserRecursionLimitAsInvalidPayload()
    {
        // 150 nested unknown groups (field 15: start 7b, end 7c); Google.Protobuf stops at depth 100.
        byte[] payload = [.. System.Linq.Enumerable.Repeat((byte)0x7b, 150), .. System.Linq.Enumerable.Repeat((byte)0x7c, 150)];
        InvalidFrameException e = Assert.Throws<InvalidFrameException>(() =>
            Readings.Deserialize([.. Bytes("00 0000002a 00"), .. payload], false, Value()));
        Assert.Equal(FrameErrorCode.InvalidPayload, e.ErrorCode);
        Assert.Contains("recursion", e.InnerException!.Message, StringComparison.OrdinalIgnoreCase);
    }

    [Fact]
    public void SchemaIdHeader_WinsOverThePrefix()
    {
        // Dual rule: with the header present, the record's bytes are the bare payload.
        var headers = new Headers { { SchemaIdHeaderNames.Value, Bytes("01 535dfcf3ca23439aa2aa7cf32e6ddf10 00") } };
        Assert.Equal(Sample, Readings.Deserialize(SamplePayload, false, Value(headers)));
        Frame frame = Readings.FrameReader.Read(SamplePayload, Value(headers));
        Assert.Equal(SchemaIdPlacement.Header, frame.SchemaIdPlacement);
        Assert.Equal(Guid.Parse("535dfcf3-ca23-439a-a2aa-7cf32e6ddf10"), frame.SchemaId.Guid);
    }

    [Fact]
    public void LastSchemaIdHeader_Wins()
    {
        var lastValid = new Headers
        {
            { SchemaIdHeaderNames.Value, Bytes("ff") },
            { SchemaIdHeaderNames.Value, Bytes("00 00000009 00") },
        };
        Assert.Equal(Sample, Readings.Deserialize(SamplePayload, false, Value(lastValid)));

        var lastInvalid = new Headers
        {
            { SchemaIdHeaderNames.Value, Bytes("00 00000009 00") },
            { SchemaIdHeaderNames.Value, Bytes("ff") },
        };
        InvalidFrameException e = Assert.Throws<InvalidFrameException>(() => Readings.Deserialize(SamplePayload, false, Value(lastInvalid)));
        Assert.Equal(FrameErrorCode.UnknownMagicByte, e.ErrorCode);
        Assert.Equal(FrameErrorLocation.SchemaIdHeader, e.Location);
    }

    [Fact]
    public void KeyDeserializer_IgnoresTheValueHeader()
    {
        var headers = new Headers { { SchemaIdHeaderNames.Value, Bytes("00 00000009 00") } };
        Assert.Equal(Sample, Readings.Deserialize(SampleFrame, false, Key(headers)));
        Assert.Equal(SchemaIdPlacement.Prefix, Readings.FrameReader.Read(SampleFrame, Key(headers)).SchemaIdPlacement);
    }

    [Fact]
    public void KeyDeserializer_ReadsTheKeyHeader()
    {
        var headers = new Headers { { SchemaIdHeaderNames.Key, Bytes("00 00000009 00") } };
        Frame frame = Readings.FrameReader.Read(SamplePayload, Key(headers));
        Assert.Equal(SchemaIdentifier.FromId(9), frame.SchemaId);
        Assert.Equal(Sample, Readings.Deserialize(SamplePayload, false, Key(headers)));
    }

    [Fact]
    public void PrefixOnly_IgnoresSchemaIdHeaders()
    {
        var headers = new Headers { { SchemaIdHeaderNames.Value, Bytes("00 00000009 00") } };
        var deserializer = new FramedProtobufDeserializer<Reading>(new FramedDeserializerOptions { Framing = { SchemaIdLookup = SchemaIdLookup.PrefixOnly } });
        Assert.Equal(Sample, deserializer.Deserialize(SampleFrame, false, Value(headers)));
        Assert.Equal(SchemaIdentifier.FromId(42), deserializer.FrameReader.Read(SampleFrame, Value(headers)).SchemaId);
    }

    [Fact]
    public void NoHeadersInTheContext_ReadsThePrefix() =>
        Assert.Equal(Sample, Readings.Deserialize(SampleFrame, false, SerializationContext.Empty));

    [Fact]
    public void LegacyOption_ReadsUnsignedIndexes()
    {
        byte[] frame = [.. Bytes("00 0000002a 01 02"), .. new Alert { DeviceId = "d" }.ToByteArray()];
        var deserializer = new FramedProtobufDeserializer<Alert>(new FramedDeserializerOptions { Framing = { MessageIndexEncoding = MessageIndexEncoding.LegacyUnsigned } });
        Assert.Equal(new Alert { DeviceId = "d" }, deserializer.Deserialize(frame, false, Value()));
        Assert.Equal([2], deserializer.FrameReader.Read(frame, Value()).MessageIndexPath.ToArray());
    }

    [Fact]
    public void Options_AreCopiedWhenTheDeserializerIsCreated()
    {
        var options = new FramedDeserializerOptions();
        var deserializer = new FramedProtobufDeserializer<Reading>(options);
        options.Framing.MessageIndexEncoding = MessageIndexEncoding.LegacyUnsigned;
        options.Framing.SchemaIdLookup = SchemaIdLookup.PrefixOnly;
        Assert.Equal(MessageIndexEncoding.ZigZag, deserializer.FrameReader.MessageIndexEncoding);
        Assert.Equal(SchemaIdLookup.HeaderThenPrefix, deserializer.FrameReader.SchemaIdLookup);
    }

    [Fact]
    public void UndefinedOptionValues_AreRejectedAtConstruction()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() =>
            new FramedProtobufDeserializer<Reading>(new FramedDeserializerOptions { Framing = { MessageIndexEncoding = (MessageIndexEncoding)7 } }));
        Assert.Throws<ArgumentOutOfRangeException>(() =>
            new FramedProtobufDeserializer<Reading>(new FramedDeserializerOptions { Framing = { SchemaIdLookup = (SchemaIdLookup)7 } }));
    }

    [Fact]
    public void CustomParser_IsUsed()
    {
        // Field 99 is unknown to Reading: the default parser keeps it, a discarding parser drops it.
        byte[] payload = [.. SamplePayload, .. Bytes("98 06 01")];
        byte[] frame = [.. Bytes("00 0000002a 00"), .. payload];

        Reading kept = Readings.Deserialize(frame, false, Value())!;
        Reading dropped = new FramedProtobufDeserializer<Reading>(Reading.Parser.WithDiscardUnknownFields(true), null).Deserialize(frame, false, Value())!;

        Assert.Equal(payload, kept.ToByteArray());
        Assert.Equal(SamplePayload, dropped.ToByteArray());
    }

    [Fact]
    public void NullParser_IsRejected() =>
        Assert.Throws<ArgumentNullException>(() => new FramedProtobufDeserializer<Reading>(null!, null));
}
