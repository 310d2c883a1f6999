using System;
using Confluent.Kafka;

namespace KafkaProtobuf;

/// <summary>The synchronous entry point of the record decoder, so one async wrapper serves both deserializers.</summary>
internal interface ISpanDeserializer<T>
    where T : class
{
    T? Deserialize(ReadOnlySpan<byte> data, bool isNull, SerializationContext context);
}
