using System;
using System.Collections.Generic;
using System.Diagnostics.Metrics;
using System.Net.Http;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Diagnostics;
using KafkaProtobuf.Framing;
using KafkaProtobuf.Fuzz;
using Vectors.Telemetry.V1;
using Xunit;

namespace KafkaProtobuf.Tests.Resolution;

/// <summary>
/// A schema source that fails is a failing dependency, not bad data: its own exception, never InvalidFrameException,
/// not counted as a failed record, not dead-letterable, and not remembered once the source is back.
/// </summary>
public class SchemaUnavailableTests
{
    private static readonly SerializationContext Value = new(MessageComponentType.Value, "telemetry");
    private static readonly Reading AReading = new() { SensorId = "s" };
    private static readonly byte[] Frame = [0x00, 0, 0, 0, 9, 0x00, .. AReading.ToByteArray()];

    private sealed class FlakySource
    {
        public bool Down { get; set; } = true;

        public int Calls { get; private set; }

        public Google.Protobuf.Reflection.FileDescriptor? Resolve(SchemaIdentifier id)
        {
            Calls++;
            return Down ? throw new HttpRequestException("connection refused") : TelemetryReflection.Descriptor;
        }
    }

    [Fact]
    public void MultiType_ResolverThrows_SchemaUnavailable_ThenRecoversWhenTheSourceIsBack()
    {
        var source = new FlakySource();
        var deserializer = new MultiTypeProtobufDeserializer([TelemetryReflection.Descriptor], new MultiTypeDeserializerOptions { WriterSchemas = { Source = new FunctionSchemaSource(source.Resolve) } });

        SchemaUnavailableException e = Assert.Throws<SchemaUnavailableException>(() => deserializer.Deserialize(Frame, false, Value));
        Assert.Equal(SchemaIdentifier.FromId(9), e.SchemaId);
        Assert.Equal(MessageComponentType.Value, e.Component);
        Assert.Equal("telemetry", e.Topic);
        Assert.IsType<HttpRequestException>(e.InnerException);
        Assert.Contains("not bad data", e.Message, StringComparison.Ordinal);

        // TryDeserialize reports bad data as a FrameError; an unavailable schema is not bad data, so it throws.
        Assert.Throws<SchemaUnavailableException>(() => deserializer.TryDeserialize(Frame, false, Value, out _, out _));
        Task<IMessage?> faulted = deserializer.DeserializeAsync(Frame, false, Value);
        Assert.IsType<SchemaUnavailableException>(faulted.Exception!.InnerException);

        source.Down = false; // failures are not cached
        Assert.Equal(AReading, deserializer.Deserialize(Frame, false, Value));
        Assert.Equal(4, source.Calls);
    }

    [Fact]
    public void Typed_ResolverThrows_SchemaUnavailable()
    {
        var source = new FlakySource();
        var deserializer = new FramedProtobufDeserializer<Reading>(new FramedDeserializerOptions { VerifyWriterType = true, WriterSchemas = { Source = new FunctionSchemaSource(source.Resolve) } });
        Assert.Throws<SchemaUnavailableException>(() => deserializer.Deserialize(Frame, false, Value));
        Assert.IsType<SchemaUnavailableException>(deserializer.DeserializeAsync(Frame, false, Value).Exception!.InnerException);
        source.Down = false;
        Assert.Equal(AReading, deserializer.Deserialize(Frame, false, Value));
    }

    [Fact]
    public void UnavailableSchemas_AreCountedApart_NotAsFailedRecords()
    {
        var source = new FlakySource();
        var deserializer = new MultiTypeProtobufDeserializer([TelemetryReflection.Descriptor], new MultiTypeDeserializerOptions { WriterSchemas = { Source = new FunctionSchemaSource(source.Resolve) } });
        var counts = new Dictionary<string, long>();
        using var listener = new MeterListener();
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (instrument.Meter.Name == KafkaProtobufMetrics.MeterName)
            {
                l.EnableMeasurementEvents(instrument);
            }
        };
        listener.SetMeasurementEventCallback<long>((instrument, value, _, _) =>
        {
            lock (counts)
            {
                counts[instrument.Name] = counts.GetValueOrDefault(instrument.Name) + value;
            }
        });
        listener.Start();

        Assert.Throws<SchemaUnavailableException>(() => deserializer.Deserialize(Frame, false, Value));
        listener.Dispose();

        // Other tests run in parallel and record too; this deserializer's topic-free failure shows as an unavailable schema.
        Assert.True(counts.GetValueOrDefault(KafkaProtobufMetrics.SchemasUnavailable) >= 1);
    }

    [Fact]
    public void AConsumeExceptionForAnUnavailableSchema_IsNotADeserializationFailure_AndCannotBeDeadLettered()
    {
        var record = new ConsumeResult<byte[], byte[]>
        {
            TopicPartitionOffset = new TopicPartitionOffset("telemetry", 0, 5),
            Message = new Message<byte[], byte[]> { Value = Frame, Headers = [] },
        };
        var unavailable = new ConsumeException(
            record,
            new Error(ErrorCode.Local_ValueDeserialization),
            new SchemaUnavailableException(SchemaIdentifier.FromId(9), MessageComponentType.Value, "telemetry", new TimeoutException()));
        var bad = new ConsumeException(
            record,
            new Error(ErrorCode.Local_ValueDeserialization),
            new InvalidFrameException(new FrameError(FrameErrorCode.UnknownMagicByte, 0, FrameErrorLocation.RecordData, default), MessageComponentType.Value, "telemetry", null));

        Assert.False(unavailable.IsDeserializationFailure());
        Assert.True(unavailable.IsSchemaUnavailable());
        Assert.True(bad.IsDeserializationFailure());
        Assert.False(bad.IsSchemaUnavailable());
        ArgumentException e = Assert.Throws<ArgumentException>(() => unavailable.ToDeadLetterMessage());
        Assert.Contains("must not be dead-lettered", e.Message, StringComparison.Ordinal);
    }
}
