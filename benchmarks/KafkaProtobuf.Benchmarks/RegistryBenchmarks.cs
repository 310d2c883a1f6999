using System;
using BenchmarkDotNet.Attributes;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.Framing;
using KafkaProtobuf.Fuzz;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;

namespace KafkaProtobuf.Benchmarks;

/// <summary>
/// Warm per-record cost of resolving through the registry: the multi-type deserializer reading the path in the writer's
/// file from the registry (cached after the first record) against the registry-free one, on the same S record.
/// </summary>
[MemoryDiagnoser]
public class RegistryDeserializerBenchmarks
{
    private readonly MultiTypeProtobufDeserializer _registryFree = MultiTypeProtobufDeserializer.ForFiles(AddressBook.AddressbookReflection.Descriptor);
    private InProcessSchemaRegistry _registry = null!;
    private RegistryClient _client = null!;
    private MultiTypeProtobufDeserializer _byRegistry = null!;
    private byte[] _frame = [];
    private SerializationContext _context;

    [Params("S", "S-header")]
    public string Record { get; set; } = "S";

    [GlobalSetup]
    public void Setup()
    {
        _registry = Tools.AddressBookRegistry.Start();
        _client = new RegistryClient(_registry.Url);
        _byRegistry = new MultiTypeProtobufDeserializer([AddressBook.AddressbookReflection.Descriptor], new MultiTypeDeserializerOptions { WriterSchemas = { Source = _client } });
        (_frame, _context) = Payloads.Frame(Payloads.Book("S"), Record == "S-header" ? SchemaIdPlacement.Header : SchemaIdPlacement.Prefix);
        _byRegistry.Deserialize(_frame, false, _context); // the first record fetches the schema
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _client.Dispose();
        _registry.Dispose();
    }

    [Benchmark(Baseline = true, Description = "MultiTypeProtobufDeserializer, registry-free")]
    public IMessage? RegistryFree() => _registryFree.Deserialize(_frame, false, _context);

    private readonly MultiTypeProtobufDeserializer _generatedResolver = new([AddressBook.AddressbookReflection.Descriptor], new MultiTypeDeserializerOptions { WriterSchemas = { Source = new FunctionSchemaSource(_ => AddressBook.AddressbookReflection.Descriptor) } });

    // Isolates the per-record cost of a resolver's cached answer from anything the registry's file might change.
    [Benchmark(Description = "MultiTypeProtobufDeserializer, a resolver returning the generated file (warm)")]
    public IMessage? GeneratedResolver() => _generatedResolver.Deserialize(_frame, false, _context);

    [Benchmark(Description = "MultiTypeProtobufDeserializer, resolved by name via the registry (warm)")]
    public IMessage? ByRegistry() => _byRegistry.Deserialize(_frame, false, _context);
}

/// <summary>
/// Per-record cost of the registering serializer after the first record of its subject, against the pinned-id one,
/// on the same S record.
/// </summary>
[MemoryDiagnoser]
public class RegistrySerializerBenchmarks
{
    private readonly AddressBook.AddressBook _book = Payloads.Book("S");
    private readonly FramedProtobufSerializer<AddressBook.AddressBook> _pinned = new(Payloads.SchemaId);
    private InProcessSchemaRegistry _registry = null!;
    private RegistryClient _client = null!;
    private RegistryProtobufSerializer<AddressBook.AddressBook> _registering = null!;
    private SerializationContext _context;

    [GlobalSetup]
    public void Setup()
    {
        _registry = Tools.AddressBookRegistry.Start();
        _client = new RegistryClient(_registry.Url);
        _registering = new RegistryProtobufSerializer<AddressBook.AddressBook>(_client, null);
        _context = new SerializationContext(MessageComponentType.Value, Payloads.Topic, new Headers { { "traceparent", new byte[55] } });
        _registering.Serialize(_book, _context); // the first record registers
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _client.Dispose();
        _registry.Dispose();
    }

    [Benchmark(Baseline = true, Description = "FramedProtobufSerializer, pinned id")]
    public byte[]? Pinned() => _pinned.Serialize(_book, _context);

    [Benchmark(Description = "RegistryProtobufSerializer, after the first record")]
    public byte[]? Registering() => _registering.Serialize(_book, _context);
}
