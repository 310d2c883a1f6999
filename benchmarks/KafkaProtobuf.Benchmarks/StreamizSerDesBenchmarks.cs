using BenchmarkDotNet.Attributes;
using Confluent.Kafka;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Streamiz;
using KafkaProtobuf.Testing;
#if CONFLUENT
using Confluent.Kafka.SyncOverAsync;
using Confluent.SchemaRegistry;
using Confluent.SchemaRegistry.Serdes;
#endif

namespace KafkaProtobuf.Benchmarks;

/// <summary>
/// What a Streamiz topology pays per record to read and write an S record through its value serdes, warm: this
/// package's <see cref="RegistryProtobufSerDes{T}"/> against what Streamiz's <c>SchemaProtobufSerDes&lt;T&gt;</c> runs
/// (Confluent's Protobuf deserializer and registering serializer through <c>AsSyncOverAsync</c>, as its source does; the
/// Streamiz serdes package itself is not served here, so its two calls are made directly). Confluent's rows need
/// <c>-p:CompareWithConfluent=true</c>.
/// </summary>
[MemoryDiagnoser]
public class StreamizSerDesBenchmarks
{
    private readonly AddressBook.AddressBook _book = Payloads.Book("S");
    private InProcessSchemaRegistry _registry = null!;
    private RegistryClient _client = null!;
    private RegistryProtobufSerDes<AddressBook.AddressBook> _serdes = null!;
    private byte[] _frame = [];
    private SerializationContext _context;
#if CONFLUENT
    private CachedSchemaRegistryClient _confluentClient = null!;
    private IDeserializer<AddressBook.AddressBook> _confluentDeserializer = null!;
    private ISerializer<AddressBook.AddressBook> _confluentSerializer = null!;
#endif

    [GlobalSetup]
    public void Setup()
    {
        _registry = Tools.AddressBookRegistry.Start();
        _client = new RegistryClient(_registry.Url);
        _serdes = new RegistryProtobufSerDes<AddressBook.AddressBook>(_client);
        _context = new SerializationContext(MessageComponentType.Value, Payloads.Topic, new Headers());
        _frame = _serdes.Serialize(_book, _context)!; // registers; then reads once, which fetches the writer's schema
        _serdes.Deserialize(_frame, _context);
#if CONFLUENT
        _confluentClient = new CachedSchemaRegistryClient(new SchemaRegistryConfig { Url = _registry.Url });
        _confluentDeserializer = new ProtobufDeserializer<AddressBook.AddressBook>().AsSyncOverAsync();
        _confluentSerializer = new ProtobufSerializer<AddressBook.AddressBook>(_confluentClient).AsSyncOverAsync();
        _confluentSerializer.Serialize(_book, _context);
#endif
    }

    [GlobalCleanup]
    public void Cleanup()
    {
#if CONFLUENT
        _confluentClient.Dispose();
#endif
        _client.Dispose();
        _registry.Dispose();
    }

    [Benchmark(Baseline = true, Description = "Deserialize: RegistryProtobufSerDes<T>")]
    public AddressBook.AddressBook? Deserialize() => _serdes.Deserialize(_frame, _context);

    [Benchmark(Description = "Serialize: RegistryProtobufSerDes<T>")]
    public byte[]? Serialize() => _serdes.Serialize(_book, _context);

#if CONFLUENT
    [Benchmark(Description = "Deserialize: Confluent's ProtobufDeserializer<T>, sync over async (SchemaProtobufSerDes's path)")]
    public AddressBook.AddressBook DeserializeConfluent() => _confluentDeserializer.Deserialize(_frame, _frame is null, _context);

    [Benchmark(Description = "Serialize: Confluent's ProtobufSerializer<T>, sync over async (SchemaProtobufSerDes's path)")]
    public byte[] SerializeConfluent() => _confluentSerializer.Serialize(_book, _context);
#endif
}
