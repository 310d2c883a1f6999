using System;
using Confluent.Kafka;

namespace KafkaProtobuf;

/// <summary>The synchronous entry point both deserializers share, so one async wrapper serves both.</summary>
internal interface ISpanDeserializer<T>
    where T : class
{
    T? Deserialize(ReadOnlySpan<byte> data, bool isNull, SerializationContext context);
}
