using System.Collections.Generic;
using System.Text;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.Framing;
using Vectors.Telemetry.V1;
using static KafkaProtobuf.Tests.Support.Hex;

namespace KafkaProtobuf.Tests.EndToEnd;

/// <summary>One malformed record per fault class, in the value or the key, as raw bytes a producer can write.</summary>
public sealed record PoisonRecord(string Name, byte[] Key, byte[] Value, byte[]? ValueSchemaIdHeader, FrameErrorCode Code, MessageComponentType Component)
{
    /// <summary>A valid key: schema id 1, Reading at [0].</summary>
    public static byte[] GoodKey(string sensor) => [.. Bytes("00 00000001 00"), .. new Reading { SensorId = sensor }.ToByteArray()];

    public static IReadOnlyList<PoisonRecord> All(int seed)
    {
        byte[] key = GoodKey("poison-" + seed);
        byte[] device = new Device { Id = "poisoned-" + seed }.ToByteArray();
        PoisonRecord Make(string name, byte[] k, byte[] value, byte[]? header, FrameErrorCode code, MessageComponentType component) =>
            new($"{name} #{seed}", k, value, header, code, component);
        return
        [
            Make("empty value", key, [], null, FrameErrorCode.EmptyData, MessageComponentType.Value),
            Make("truncated id", key, Bytes("00 0000"), null, FrameErrorCode.TruncatedSchemaId, MessageComponentType.Value),
            Make("truncated guid", key, Bytes("01 535dfcf3ca23"), null, FrameErrorCode.TruncatedSchemaId, MessageComponentType.Value),
            Make("json value", key, Encoding.UTF8.GetBytes("{\"id\":\"dev-" + seed + "\"}"), null, FrameErrorCode.UnknownMagicByte, MessageComponentType.Value),
            Make("truncated varint", key, Bytes("00 00000002 82"), null, FrameErrorCode.TruncatedVarint, MessageComponentType.Value),
            Make("six-byte varint", key, Bytes("00 00000002 80 80 80 80 80 01"), null, FrameErrorCode.VarintTooLong, MessageComponentType.Value),
            Make("overflowing varint", key, Bytes("00 00000002 02 ff ff ff ff 7f"), null, FrameErrorCode.VarintOverflow, MessageComponentType.Value),
            Make("negative count", key, [.. Bytes("00 00000002 03"), .. device], null, FrameErrorCode.NegativeMessageIndexCount, MessageComponentType.Value),
            Make("count past the end", key, Bytes("00 00000002 06 02"), null, FrameErrorCode.MessageIndexCountExceedsData, MessageComponentType.Value),
            Make("negative index", key, [.. Bytes("00 00000002 02 05"), .. device], null, FrameErrorCode.NegativeMessageIndex, MessageComponentType.Value),
            Make("empty header", key, device, [], FrameErrorCode.EmptyData, MessageComponentType.Value),
            Make("header trailing bytes", key, device, Bytes("00 00000002 02 02 ff"), FrameErrorCode.TrailingHeaderBytes, MessageComponentType.Value),
            Make("bad payload", key, Bytes("00 00000002 02 02 0a 05 61"), null, FrameErrorCode.InvalidPayload, MessageComponentType.Value),
            Make("bad key", Bytes("02 00000001 00"), [.. Bytes("00 00000002 02 02"), .. device], null, FrameErrorCode.UnknownMagicByte, MessageComponentType.Key),
        ];
    }

    public Message<byte[], byte[]> ToMessage()
    {
        var headers = new Headers { { "origin", Encoding.UTF8.GetBytes(Name) } };
        if (ValueSchemaIdHeader is not null)
        {
            headers.Add(SchemaIdHeaderNames.Value, ValueSchemaIdHeader);
        }

        return new Message<byte[], byte[]> { Key = Key, Value = Value, Headers = headers };
    }
}
