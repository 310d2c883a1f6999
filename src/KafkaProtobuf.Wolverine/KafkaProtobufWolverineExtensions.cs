using System;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Wolverine.Envelopes;
using KafkaProtobuf.Wolverine.Decoding;
using KafkaProtobuf.Wolverine.Transport;
using KafkaProtobuf.Wolverine.Writing;
using Wolverine;
using Wolverine.Configuration;
using Wolverine.Kafka;

namespace KafkaProtobuf.Wolverine;

/// <summary>Schema Registry Protobuf on Wolverine's Kafka listeners and publishing routes.</summary>
public static class KafkaProtobufWolverineExtensions
{
    /// <summary>
    /// Reads the topic's records as Protobuf messages of several types with <paramref name="deserializer"/>: each record's
    /// schema id (in its prefix, or in a header; ids and GUIDs) and message-index path choose its generated type, and the
    /// record reaches the Wolverine handler of that type. A record that cannot be read (bad framing, an unknown schema id,
    /// a type the deserializer does not read and was told to reject) fails with <see cref="InvalidFrameException"/> in
    /// Wolverine's pipeline, so Wolverine's error handling moves it to the endpoint's dead-letter destination: with the
    /// native dead-letter queue (<c>EnableNativeDeadLetterQueue()</c>), its key, value and headers exactly as read, binary
    /// headers binary, then the library's dead-letter headers. A schema source that fails (a registry outage) is not bad
    /// data: the listener waits and reads the record again, backing off up to 5 s, so nothing after it is handled or
    /// committed meanwhile. A tombstone reaches a handler of Wolverine's <see cref="KafkaTombstone"/>, if there is one.
    /// </summary>
    /// <param name="listener">The Kafka listener (<c>opts.ListenToKafkaTopic(name)</c>).</param>
    /// <param name="deserializer">
    /// The library's deserializer for the value: compiled types only (<see cref="MultiTypeProtobufDeserializer.ForFiles"/>),
    /// or a schema registry (<c>WriterSchemas.Source</c> a <see cref="RegistryClient"/>).
    /// </param>
    /// <returns>The listener, to go on configuring it.</returns>
    public static KafkaListenerConfiguration ReadProtobuf(this KafkaListenerConfiguration listener, MultiTypeProtobufDeserializer deserializer)
    {
        ArgumentNullException.ThrowIfNull(listener);
        ArgumentNullException.ThrowIfNull(deserializer);
        ProtobufTopic topic = TopicOf(listener);
        topic.Reader = new ProtobufReader(deserializer);
        listener.DefaultSerializer(topic.Serializer);
        return listener.UseInterop((runtime, _) => topic.MapperFor(runtime));
    }

    /// <summary>
    /// Writes the route's messages (generated Protobuf types) with the registering serializer, the schema id in the
    /// record's prefix, the subject from the topic each record goes to (TopicNameStrategy: <c>{topic}-value</c>).
    /// </summary>
    /// <param name="route">The publishing route (<c>opts.PublishMessage&lt;T&gt;().ToKafkaTopic(name)</c>).</param>
    /// <param name="registry">The schema registry the schemas are registered in and looked up from.</param>
    /// <returns>The route, to go on configuring it.</returns>
    public static KafkaSubscriberConfiguration WriteProtobuf(this KafkaSubscriberConfiguration route, RegistryClient registry) =>
        WriteProtobuf(route, registry, new RegistrySerializerOptions());

    /// <summary>
    /// Writes the route's messages (generated Protobuf types) with the registering serializer, as
    /// <paramref name="options"/> say: the schema id in the prefix or in headers (<see cref="RegistrySerializerOptions.SchemaIdPlacement"/>,
    /// written as bytes), the subject from the topic each record goes to and the options' subject naming.
    /// </summary>
    /// <param name="route">The publishing route (<c>opts.PublishMessage&lt;T&gt;().ToKafkaTopic(name)</c>).</param>
    /// <param name="registry">The schema registry the schemas are registered in and looked up from.</param>
    /// <param name="options">The serializer's options.</param>
    /// <returns>The route, to go on configuring it.</returns>
    public static KafkaSubscriberConfiguration WriteProtobuf(this KafkaSubscriberConfiguration route, RegistryClient registry, RegistrySerializerOptions options)
    {
        ArgumentNullException.ThrowIfNull(route);
        ArgumentNullException.ThrowIfNull(registry);
        ArgumentNullException.ThrowIfNull(options);
        ProtobufTopic topic = TopicOf(route);
        topic.Writer = new ProtobufWriter(registry, options);
        route.DefaultSerializer(topic.Serializer);
        return route.UseInterop((runtime, _) => topic.MapperFor(runtime));
    }

    /// <summary>
    /// The Kafka headers of the record an envelope was read from by <see cref="ReadProtobuf"/>, exactly as read (in order,
    /// binary values as bytes); null for an envelope that was not. The envelope's own <c>Headers</c> hold only the ones
    /// that are UTF-8 text.
    /// </summary>
    /// <param name="envelope">The envelope (a handler's <c>Envelope</c> parameter).</param>
    /// <returns>The record's headers, or null.</returns>
    public static Confluent.Kafka.Headers? RecordHeaders(this Envelope envelope)
    {
        ArgumentNullException.ThrowIfNull(envelope);
        return Envelopes.RecordHeaders.Of(envelope);
    }

    private static ProtobufTopic TopicOf(IEndpointExpression configuration) => configuration.Endpoint is KafkaTopic kafka
        ? ProtobufTopic.Of(kafka)
        : throw new ArgumentException("The configuration is not of one Kafka topic.", nameof(configuration));
}
