using System;
using BenchmarkDotNet.Attributes;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.Framing;
using KafkaProtobuf.Resolution;

namespace KafkaProtobuf.Benchmarks;

/// <summary>
/// One record's value: a bare <c>ParseFrom</c> of the payload (the floor: no framing at all) against our sync and
/// async deserializers on the framed record, and Confluent's (opt-in build). S/M/L address books with the schema id in
/// the prefix, and S with the schema GUID in the <c>__value_schema_id</c> header.
/// </summary>
[MemoryDiagnoser]
public class PerRecordBenchmarks
{
    private readonly FramedProtobufDeserializer<AddressBook.AddressBook> _ours = new();
    private byte[] _payload = [];
    private byte[] _frame = [];
    private ReadOnlyMemory<byte> _frameMemory;
    private SerializationContext _context;
#if CONFLUENT
    private IDeserializer<AddressBook.AddressBook> _confluent = null!;
    private IDeserializer<AddressBook.AddressBook> _confluentWithRegistry = null!;
    private KafkaProtobuf.Testing.InProcessSchemaRegistry? _registry;
#endif

    [Params("S", "M", "L", "S-header")]
    public string Record { get; set; } = "S";

    [GlobalSetup]
    public void Setup()
    {
        string size = Record.Split('-')[0];
        AddressBook.AddressBook book = Payloads.Book(size);
        _payload = book.ToByteArray();
        (_frame, _context) = Payloads.Frame(book, Record.EndsWith("-header", StringComparison.Ordinal) ? SchemaIdPlacement.Header : SchemaIdPlacement.Prefix);
        _frameMemory = _frame;
#if CONFLUENT
        _confluent = ConfluentDeserializers.SyncOverAsync<AddressBook.AddressBook>();
        _registry = Tools.AddressBookRegistry.Start();
        _confluentWithRegistry = ConfluentDeserializers.SyncOverAsyncWithRegistry<AddressBook.AddressBook>(_registry.Url);
#endif
    }

#if CONFLUENT
    [GlobalCleanup]
    public void Cleanup() => _registry?.Dispose();
#endif

    [Benchmark(Baseline = true, Description = "bare ParseFrom(payload)")]
    public AddressBook.AddressBook BareParse() => AddressBook.AddressBook.Parser.ParseFrom(_payload.AsSpan());

    [Benchmark(Description = "KafkaProtobuf sync")]
    public AddressBook.AddressBook? Sync() => _ours.Deserialize(_frame, isNull: false, _context);

    [Benchmark(Description = "KafkaProtobuf async")]
    public AddressBook.AddressBook? Async() => _ours.DeserializeAsync(_frameMemory, isNull: false, _context).Result;

#if CONFLUENT
    [Benchmark(Description = "Confluent 2.15 sync-over-async")]
    public AddressBook.AddressBook ConfluentSyncOverAsync() => _confluent.Deserialize(_frame, isNull: false, _context);

    // As Confluent's users run it: a CachedSchemaRegistryClient, answered once by the in-process registry, then cached.
    [Benchmark(Description = "Confluent 2.15 + registry client")]
    public AddressBook.AddressBook ConfluentWithRegistryClient() => _confluentWithRegistry.Deserialize(_frame, isNull: false, _context);
#endif
}
