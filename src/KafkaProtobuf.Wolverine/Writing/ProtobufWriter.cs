using System;
using System.Collections.Concurrent;
using System.Diagnostics.CodeAnalysis;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Wolverine.Envelopes;
using Envelope = Wolverine.Envelope;

namespace KafkaProtobuf.Wolverine.Writing;

/// <summary>
/// Frames an envelope's Protobuf message with the registering serializer (<see cref="RegistryProtobufSerializer{T}"/>):
/// the subject from the topic the record goes to, the schema id in the prefix or in headers as the options say. Headers
/// the serializer writes (a binary schema id) ride in the envelope until the mapper writes them as bytes.
/// </summary>
internal sealed class ProtobufWriter(RegistryClient registry, RegistrySerializerOptions options)
{
    private readonly ConcurrentDictionary<Type, ITypedWriter> _byType = new();

    public byte[] Write(Envelope envelope, string topic)
    {
        (IMessage message, SerializationContext context) = Prepare(envelope.Message, topic);
        byte[] data = WriterFor(message.GetType()).Write(message, context);
        Carry(context.Headers, envelope);
        return data;
    }

    public async ValueTask<byte[]> WriteAsync(Envelope envelope, string topic)
    {
        (IMessage message, SerializationContext context) = Prepare(envelope.Message, topic);
        byte[] data = await WriterFor(message.GetType()).WriteAsync(message, context).ConfigureAwait(false);
        Carry(context.Headers, envelope);
        return data;
    }

    /// <summary>A message alone (no envelope to carry headers in): with the schema id in headers, refused.</summary>
    public byte[] WriteMessage(object message, string topic)
    {
        (IMessage protobuf, SerializationContext context) = Prepare(message, topic);
        byte[] data = WriterFor(protobuf.GetType()).Write(protobuf, context);
        if (context.Headers.Count > 0)
        {
            throw new InvalidOperationException("The schema id is written in headers, and a message serialized without its envelope has none: publish it through the route instead.");
        }

        return data;
    }

    private static (IMessage, SerializationContext) Prepare(object? message, string topic) => message switch
    {
        IMessage protobuf => (protobuf, new SerializationContext(MessageComponentType.Value, topic, new Confluent.Kafka.Headers())),
        null => throw new InvalidOperationException("The envelope has no message to write."),
        _ => throw new InvalidOperationException(
            "A " + message.GetType().FullName + " is not a generated Protobuf message; this route writes Protobuf only (route other messages to another topic)."),
    };

    private static void Carry(Confluent.Kafka.Headers written, Envelope envelope)
    {
        foreach (IHeader header in written)
        {
            envelope.Headers[EnvelopeHeaderNames.Outgoing + header.Key] = Convert.ToBase64String(header.GetValueBytes());
        }
    }

    [UnconditionalSuppressMessage("Trimming", "IL2055", Justification = "Wolverine itself is not trimmable; the type is the message's own.")]
    [UnconditionalSuppressMessage("AOT", "IL3050", Justification = "Wolverine itself is not AOT-compatible.")]
    private ITypedWriter WriterFor(Type type) => _byType.GetOrAdd(type, static (t, args) =>
        (ITypedWriter)Activator.CreateInstance(typeof(TypedWriter<>).MakeGenericType(t), args.registry, args.options)!, (registry, options));
}
