using System;
using System.Collections.Generic;
using System.Diagnostics.Metrics;

namespace KafkaProtobuf.Diagnostics;

/// <summary>
/// The package's <see cref="System.Diagnostics.Metrics"/> instruments, for OpenTelemetry
/// (<c>AddMeter(KafkaProtobufMetrics.MeterName)</c>) and <c>dotnet-counters monitor --counters KafkaProtobuf</c>.
/// Recording costs a flag check per record while nothing listens.
/// </summary>
public static class KafkaProtobufMetrics
{
    /// <summary>The meter's name: <c>KafkaProtobuf</c>.</summary>
    public const string MeterName = "KafkaProtobuf";

    /// <summary>Counter of records deserialized into a message, tagged <see cref="MessageTypeTag"/>. Unit <c>{record}</c>.</summary>
    public const string RecordsDeserialized = "kafkaprotobuf.records.deserialized";

    /// <summary>Counter of the key/value bytes of those records (framing included), tagged <see cref="MessageTypeTag"/>. Unit <c>By</c>.</summary>
    public const string BytesDeserialized = "kafkaprotobuf.bytes.deserialized";

    /// <summary>Counter of records rejected, tagged <see cref="ErrorCodeTag"/>. Unit <c>{record}</c>.</summary>
    public const string RecordsFailed = "kafkaprotobuf.records.failed";

    /// <summary>Counter of records skipped without parsing (unregistered types), tagged <see cref="MessageTypeTag"/>. Unit <c>{record}</c>.</summary>
    public const string RecordsSkipped = "kafkaprotobuf.records.skipped";

    /// <summary>
    /// Counter of records whose writer's schema could not be obtained because its source failed
    /// (<see cref="SchemaUnavailableException"/>): not bad data, so not counted in <see cref="RecordsFailed"/>. Unit <c>{record}</c>.
    /// </summary>
    public const string SchemasUnavailable = "kafkaprotobuf.schemas.unavailable";

    /// <summary>Tag: the Protobuf full name of the message type, e.g. <c>shop.v1.OrderPlaced</c>.</summary>
    public const string MessageTypeTag = "message.type";

    /// <summary>Tag: the <see cref="FrameErrorCode"/> name, e.g. <c>UnknownMagicByte</c>.</summary>
    public const string ErrorCodeTag = "error.code";

    private static readonly Meter Meter = new(MeterName, typeof(KafkaProtobufMetrics).Assembly.GetName().Version?.ToString());

    private static readonly Counter<long> Records =
        Meter.CreateCounter<long>(RecordsDeserialized, "{record}", "Records deserialized into a message.");

    private static readonly Counter<long> Bytes =
        Meter.CreateCounter<long>(BytesDeserialized, "By", "Key or value bytes of the records deserialized, framing included.");

    private static readonly Counter<long> Failures =
        Meter.CreateCounter<long>(RecordsFailed, "{record}", "Records rejected by the framing reader, the type resolution or the Protobuf parser.");

    private static readonly Counter<long> Skips =
        Meter.CreateCounter<long>(RecordsSkipped, "{record}", "Records of unregistered message types skipped without parsing.");

    private static readonly Counter<long> Unavailable =
        Meter.CreateCounter<long>(SchemasUnavailable, "{record}", "Records whose writer's schema could not be obtained because its source failed.");

    // Tags are built once: a boxed enum or a new string per record would allocate on the hot path.
    private static readonly KeyValuePair<string, object?>[] ErrorTags = CreateErrorTags();

    /// <summary>A pre-built tag for a message type; create one per type, not per record.</summary>
    internal static KeyValuePair<string, object?> TypeTag(string fullName) => new(MessageTypeTag, fullName);

    internal static void Deserialized(KeyValuePair<string, object?> typeTag, int bytes)
    {
        if (Records.Enabled)
        {
            Records.Add(1, typeTag);
        }

        if (Bytes.Enabled)
        {
            Bytes.Add(bytes, typeTag);
        }
    }

    internal static void Failed(FrameErrorCode code)
    {
        if (Failures.Enabled)
        {
            int index = (int)code;
            Failures.Add(1, (uint)index < (uint)ErrorTags.Length ? ErrorTags[index] : new(ErrorCodeTag, code.ToString()));
        }
    }

    internal static void Skipped(KeyValuePair<string, object?> typeTag)
    {
        if (Skips.Enabled)
        {
            Skips.Add(1, typeTag);
        }
    }

    internal static void SchemaUnavailable()
    {
        if (Unavailable.Enabled)
        {
            Unavailable.Add(1);
        }
    }

    private static KeyValuePair<string, object?>[] CreateErrorTags()
    {
        // Comfortably more than the defined codes; a code past the end gets its tag built on the spot.
        var tags = new KeyValuePair<string, object?>[32];
        for (int i = 0; i < tags.Length; i++)
        {
            tags[i] = new(ErrorCodeTag, ((FrameErrorCode)i).ToString());
        }

        return tags;
    }
}
