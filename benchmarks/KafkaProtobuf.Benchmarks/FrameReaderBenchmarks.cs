using System;
using BenchmarkDotNet.Attributes;
using Confluent.Kafka;
using KafkaProtobuf.Framing;

namespace KafkaProtobuf.Benchmarks;

/// <summary>The framing reader alone: what the deserializer adds on top of the parse.</summary>
[MemoryDiagnoser]
public class FrameReaderBenchmarks
{
    private byte[] _data = [];
    private SerializationContext _context;

    [Params("[0]", "[1]", "[1,2,0]", "header [1]")]
    public string Path { get; set; } = "[0]";

    [GlobalSetup]
    public void Setup()
    {
        byte[] payload = [0x0a, 0x03, 0x61, 0x62, 0x63];
        int[] path = Path switch
        {
            "[0]" => [0],
            "[1]" or "header [1]" => [1],
            _ => [1, 2, 0],
        };
        byte[] schemaIdAndPath = FrameWriter.ToSchemaIdAndIndexes(Payloads.SchemaId, path, MessageIndexEncoding.ZigZag);
        var headers = new Headers { { "traceparent", new byte[55] } };
        if (Path.StartsWith("header", StringComparison.Ordinal))
        {
            headers.Add(SchemaIdHeaderNames.Value, schemaIdAndPath);
            _data = payload;
        }
        else
        {
            _data = [.. schemaIdAndPath, .. payload];
        }

        _context = new SerializationContext(MessageComponentType.Value, Payloads.Topic, headers);
    }

    [Benchmark(Description = "FrameReader.TryReadPrefixed (no header lookup)")]
    public int TryReadPrefixed()
    {
        FrameReader.Default.TryReadPrefixed(_data, out Frame frame, out _);
        return frame.Payload.Length + frame.MessageIndexPath.Count;
    }

    [Benchmark(Description = "FrameReader.TryRead")]
    public int TryRead()
    {
        FrameReader.Default.TryRead(_data, _context, out Frame frame, out _);
        return frame.Payload.Length + frame.MessageIndexPath.Count;
    }
}
