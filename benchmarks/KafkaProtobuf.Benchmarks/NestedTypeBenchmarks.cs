using System;
using BenchmarkDotNet.Attributes;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.Framing;
using Verification = KafkaProtobuf.Benchmarks.AddressBook.Person.Types.PhoneNumber.Types.Verification;

namespace KafkaProtobuf.Benchmarks;

/// <summary>A type nested three deep (index path [0, 0, 0], written as four varints after the id).</summary>
[MemoryDiagnoser]
public class NestedTypeBenchmarks
{
    private readonly FramedProtobufDeserializer<Verification> _ours = new();
    private byte[] _payload = [];
    private byte[] _frame = [];
    private SerializationContext _context;

    [GlobalSetup]
    public void Setup()
    {
        Verification message = Payloads.Verification();
        _payload = message.ToByteArray();
        (_frame, _context) = Payloads.Frame(message, SchemaIdPlacement.Prefix);
    }

    [Benchmark(Baseline = true, Description = "bare ParseFrom(payload)")]
    public Verification BareParse() => Verification.Parser.ParseFrom(_payload.AsSpan());

    [Benchmark(Description = "KafkaProtobuf sync, path [0,0,0]")]
    public Verification? Sync() => _ours.Deserialize(_frame, isNull: false, _context);
}
