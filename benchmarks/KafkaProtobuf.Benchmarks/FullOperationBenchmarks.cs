using System;
using System.Text;
using BenchmarkDotNet.Attributes;
using Confluent.Kafka;
using KafkaProtobuf.Framing;
using KafkaProtobuf.Resolution;

namespace KafkaProtobuf.Benchmarks;

/// <summary>
/// Everything the consumer does per record once librdkafka hands it over, rebuilt in managed code as
/// <c>Consumer.Consume</c> does it: copy the headers out (a string per name, an array per value), deserialize key and
/// value, build the <see cref="ConsumeResult{TKey, TValue}"/>. Shows how much of the whole the value deserializer is.
/// </summary>
[MemoryDiagnoser]
public class FullOperationBenchmarks
{
    private readonly IDeserializer<byte[]> _raw = Deserializers.ByteArray;
    private readonly FramedProtobufDeserializer<AddressBook.AddressBook> _ours = new();
    private readonly byte[] _key = Encoding.UTF8.GetBytes("customer-000123");
    private readonly byte[] _headerName = Encoding.UTF8.GetBytes("traceparent");
    private readonly byte[] _headerValue = new byte[55];
    private byte[] _value = [];
#if CONFLUENT
    private IDeserializer<AddressBook.AddressBook> _confluent = null!;
#endif

    [GlobalSetup]
    public void Setup()
    {
        (_value, _) = Payloads.Frame(Payloads.Book("S"), SchemaIdPlacement.Prefix);
#if CONFLUENT
        _confluent = ConfluentDeserializers.SyncOverAsync<AddressBook.AddressBook>();
#endif
    }

    [Benchmark(Baseline = true, Description = "raw bytes (byte[] value)")]
    public ConsumeResult<string, byte[]> RawBytes() => Consume(_raw);

    [Benchmark(Description = "KafkaProtobuf sync")]
    public ConsumeResult<string, AddressBook.AddressBook> Ours() => Consume<AddressBook.AddressBook>(_ours);

#if CONFLUENT
    [Benchmark(Description = "Confluent 2.15 sync-over-async")]
    public ConsumeResult<string, AddressBook.AddressBook> ConfluentSyncOverAsync() => Consume(_confluent);
#endif

    private ConsumeResult<string, TValue> Consume<TValue>(IDeserializer<TValue> values)
    {
        var headers = new Headers { { Encoding.UTF8.GetString(_headerName), (byte[])_headerValue.Clone() } };
        string key = Deserializers.Utf8.Deserialize(_key, false, new SerializationContext(MessageComponentType.Key, Payloads.Topic, headers));
        TValue value = values.Deserialize(_value, false, new SerializationContext(MessageComponentType.Value, Payloads.Topic, headers));
        return new ConsumeResult<string, TValue>
        {
            TopicPartitionOffset = new TopicPartitionOffset(Payloads.Topic, new Partition(3), new Offset(123_456), 7),
            Message = new Message<string, TValue>
            {
                Key = key,
                Value = value,
                Headers = headers,
                Timestamp = new Timestamp(1_700_000_000_000, TimestampType.CreateTime),
            },
            IsPartitionEOF = false,
        };
    }
}
