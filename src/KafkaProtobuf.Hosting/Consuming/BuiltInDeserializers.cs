using System;
using Confluent.Kafka;

namespace KafkaProtobuf.Hosting.Consuming;

/// <summary>Confluent.Kafka's deserializers for the key and value types it knows, for a consumer given none.</summary>
internal static class BuiltInDeserializers
{
    public static IDeserializer<T> For<T>(string component) => typeof(T) switch
    {
        var t when t == typeof(string) => (IDeserializer<T>)(object)Deserializers.Utf8,
        var t when t == typeof(byte[]) => (IDeserializer<T>)(object)Deserializers.ByteArray,
        var t when t == typeof(Ignore) => (IDeserializer<T>)(object)Deserializers.Ignore,
        var t when t == typeof(Null) => (IDeserializer<T>)(object)Deserializers.Null,
        var t when t == typeof(int) => (IDeserializer<T>)(object)Deserializers.Int32,
        var t when t == typeof(long) => (IDeserializer<T>)(object)Deserializers.Int64,
        var t when t == typeof(float) => (IDeserializer<T>)(object)Deserializers.Single,
        var t when t == typeof(double) => (IDeserializer<T>)(object)Deserializers.Double,
        _ => throw new InvalidOperationException(
            "The " + component
                + " type " + typeof(T).Name + " has no built-in deserializer: call WithProtobuf"
                + (component == "key" ? "Keys" : "Values")
            + " or With" + (component == "key" ? "Key" : "Value") + "Deserializer on the consumer's builder."),
    };
}
