using System.Diagnostics;
using BenchmarkDotNet.Attributes;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Diagnostics;

namespace KafkaProtobuf.Benchmarks;

/// <summary>
/// What the hosted consumer's per-record span costs while nobody listens to its source (the common case): the
/// sequential path's work for one S record (deserialize) with and without the span call around it.
/// </summary>
[MemoryDiagnoser]
public class TracingBenchmarks
{
    private readonly FramedProtobufDeserializer<AddressBook.AddressBook> _deserializer = new();
    private readonly ConsumerTracing _tracing = new("bench", "bench-group");
    private readonly ConsumeResult<Ignore, AddressBook.AddressBook> _record = new() { TopicPartitionOffset = new("bench", 3, 1_000), Message = new() };
    private readonly Headers _headers = [];
    private byte[] _data = null!;
    private SerializationContext _context;

    [GlobalSetup]
    public void Setup() => (_data, _context) = Payloads.Frame(Payloads.Book("S"), SchemaIdPlacement.Prefix);

    [Benchmark(Baseline = true, Description = "record, no span call")]
    public AddressBook.AddressBook Plain() => _deserializer.Deserialize(_data, false, _context)!;

    [Benchmark(Description = "record in a process span, nobody listening")]
    public AddressBook.AddressBook Traced()
    {
        AddressBook.AddressBook book = _deserializer.Deserialize(_data, false, _context)!;
        using (Activity? span = _tracing.Start(_record.Topic, _record.Partition, _record.Offset, _headers, book))
        {
            return book;
        }
    }
}
