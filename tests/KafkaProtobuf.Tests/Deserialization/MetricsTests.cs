using System;
using System.Collections.Generic;
using System.Diagnostics.Metrics;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.Diagnostics;
using Vectors.Telemetry.V1;
using Xunit;
using static KafkaProtobuf.Tests.Support.Hex;

namespace KafkaProtobuf.Tests.Deserialization;

/// <summary>Counters are process-wide, so these tests run alone, after the parallel ones.</summary>
[CollectionDefinition(nameof(MetricsTests), DisableParallelization = true)]
public sealed class MetricsRunAlone;

[Collection(nameof(MetricsTests))]
public sealed class MetricsTests : IDisposable
{
    private readonly MeterListener _listener = new();
    private readonly Dictionary<(string Instrument, string? Tag), long> _counts = [];

    public MetricsTests()
    {
        _listener.InstrumentPublished = (instrument, listener) =>
        {
            if (instrument.Meter.Name == KafkaProtobufMetrics.MeterName)
            {
                listener.EnableMeasurementEvents(instrument);
            }
        };
        _listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) =>
        {
            string? tag = tags.Length > 0 ? tags[0].Key + "=" + tags[0].Value : null;
            lock (_counts)
            {
                _counts[(instrument.Name, tag)] = _counts.GetValueOrDefault((instrument.Name, tag)) + value;
            }
        });
        _listener.Start();
    }

    public void Dispose() => _listener.Dispose();

    private long Count(string instrument, string tag) => _counts.GetValueOrDefault((instrument, tag));

    [Fact]
    public void Counters_CountRecordsBytesFailuresAndSkips()
    {
        var context = new SerializationContext(MessageComponentType.Value, "metrics", []);
        byte[] reading = [.. Bytes("00 00000001 00"), .. new Reading { SensorId = "s" }.ToByteArray()];
        byte[] device = [.. Bytes("00 00000001 02 02"), .. new Device { Id = "d" }.ToByteArray()];
        var typed = new FramedProtobufDeserializer<Reading>();
        var multi = new MultiTypeProtobufDeserializer(
            [Reading.Descriptor], new MultiTypeDeserializerOptions { UnregisteredMessageTypes = UnregisteredMessageTypeHandling.Skip });

        for (int i = 0; i < 3; i++)
        {
            typed.Deserialize(reading, false, context);
        }

        multi.Deserialize(reading, false, context);
        multi.Deserialize(device, false, context);
        multi.Deserialize(device, false, context);
        typed.TryDeserialize(Bytes("7b"), false, context, out _, out _);
        Assert.Throws<InvalidFrameException>(() => typed.Deserialize(Bytes("00 00000001 01"), false, context));
        Assert.Throws<InvalidFrameException>(() => multi.Deserialize(Bytes("00 00000001 02 0e"), false, context));
        typed.Deserialize(default, true, context); // tombstones are not records deserialized

        _listener.RecordObservableInstruments();
        string reads = KafkaProtobufMetrics.MessageTypeTag + "=vectors.telemetry.v1.Reading";
        Assert.Equal(4, Count(KafkaProtobufMetrics.RecordsDeserialized, reads));
        Assert.Equal(4 * reading.Length, Count(KafkaProtobufMetrics.BytesDeserialized, reads));
        Assert.Equal(2, Count(KafkaProtobufMetrics.RecordsSkipped, KafkaProtobufMetrics.MessageTypeTag + "=vectors.telemetry.v1.Device"));
        Assert.Equal(1, Count(KafkaProtobufMetrics.RecordsFailed, KafkaProtobufMetrics.ErrorCodeTag + "=UnknownMagicByte"));
        Assert.Equal(1, Count(KafkaProtobufMetrics.RecordsFailed, KafkaProtobufMetrics.ErrorCodeTag + "=NegativeMessageIndexCount"));
        Assert.Equal(1, Count(KafkaProtobufMetrics.RecordsFailed, KafkaProtobufMetrics.ErrorCodeTag + "=UnknownMessageType"));
        Assert.Equal(0, Count(KafkaProtobufMetrics.RecordsDeserialized, KafkaProtobufMetrics.MessageTypeTag + "=vectors.telemetry.v1.Device"));
    }
}
