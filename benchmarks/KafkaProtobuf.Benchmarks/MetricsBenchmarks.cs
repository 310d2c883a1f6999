using System.Collections.Generic;
using BenchmarkDotNet.Attributes;
using KafkaProtobuf.Diagnostics;

namespace KafkaProtobuf.Benchmarks;

/// <summary>What the metrics cost a record while nothing listens (the common case): one flag check per counter.</summary>
[MemoryDiagnoser]
public class MetricsBenchmarks
{
    private readonly KeyValuePair<string, object?> _tag = KafkaProtobufMetrics.TypeTag("tutorial.AddressBook");

    [Benchmark(Description = "record deserialized, nobody listening")]
    public void Deserialized() => KafkaProtobufMetrics.Deserialized(_tag, 54);

    [Benchmark(Description = "record failed, nobody listening")]
    public void Failed() => KafkaProtobufMetrics.Failed(FrameErrorCode.UnknownMagicByte);
}
