using System;
using BenchmarkDotNet.Attributes;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.Framing;

namespace KafkaProtobuf.Benchmarks;

/// <summary>
/// The multi-type deserializer against the typed one on the same record (S address book, path [1]), and a record of
/// an unregistered type skipped against the same record parsed.
/// </summary>
[MemoryDiagnoser]
public class DispatchBenchmarks
{
    private readonly FramedProtobufDeserializer<AddressBook.AddressBook> _typed = new();
    private readonly MultiTypeProtobufDeserializer _dispatch = MultiTypeProtobufDeserializer.ForFiles(AddressBook.AddressbookReflection.Descriptor);
    private readonly MultiTypeProtobufDeserializer _skipping = new(
        [AddressBook.Person.Descriptor], new MultiTypeDeserializerOptions { UnregisteredMessageTypes = UnregisteredMessageTypeHandling.Skip });

    private byte[] _frame = [];
    private SerializationContext _context;

    [Params("S", "M")]
    public string Record { get; set; } = "S";

    [GlobalSetup]
    public void Setup() => (_frame, _context) = Payloads.Frame(Payloads.Book(Record), SchemaIdPlacement.Prefix);

    [Benchmark(Baseline = true, Description = "typed FramedProtobufDeserializer<AddressBook>")]
    public AddressBook.AddressBook? Typed() => _typed.Deserialize(_frame, false, _context);

    [Benchmark(Description = "MultiTypeProtobufDeserializer, parsed")]
    public IMessage? Dispatch() => _dispatch.Deserialize(_frame, false, _context);

    [Benchmark(Description = "MultiTypeProtobufDeserializer, skipped (unregistered type)")]
    public IMessage? Skip() => _skipping.Deserialize(_frame, false, _context);
}
