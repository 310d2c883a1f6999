#if CONFLUENT
using Confluent.Kafka;
using Confluent.Kafka.SyncOverAsync;
using Confluent.SchemaRegistry;
using Confluent.SchemaRegistry.Serdes;
using Google.Protobuf;
using KafkaProtobuf.Resolution;

namespace KafkaProtobuf.Benchmarks;

/// <summary>Confluent's Protobuf deserializer as its users plug it into a consumer (opt-in build only).</summary>
public static class ConfluentDeserializers
{
    /// <summary>Without a registry client: Confluent's cheapest configuration.</summary>
    public static IDeserializer<T> SyncOverAsync<T>()
        where T : class, IMessage<T>, new() =>
        new ProtobufDeserializer<T>().AsSyncOverAsync();

    /// <summary>With a <see cref="CachedSchemaRegistryClient"/> against <paramref name="registryUrl"/>, as its users run it.</summary>
    public static IDeserializer<T> SyncOverAsyncWithRegistry<T>(string registryUrl)
        where T : class, IMessage<T>, new() =>
        new ProtobufDeserializer<T>(new CachedSchemaRegistryClient(new SchemaRegistryConfig { Url = registryUrl })).AsSyncOverAsync();
}
#endif
