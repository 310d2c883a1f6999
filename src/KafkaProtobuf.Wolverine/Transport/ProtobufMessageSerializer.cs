using System;
using System.Runtime.CompilerServices;
using System.Runtime.ExceptionServices;
using System.Threading.Tasks;
using KafkaProtobuf.Wolverine.Envelopes;
using KafkaProtobuf.Wolverine.Decoding;
using Wolverine;
using Wolverine.Runtime.Serialization;
using Wolverine.Util;
using ProtobufMessage = Google.Protobuf.IMessage;

namespace KafkaProtobuf.Wolverine.Transport;

/// <summary>
/// The endpoint's serializer: Wolverine asks it to unwrap a record the mapper could not read (it throws the reason, so
/// Wolverine's error handling moves the record to its dead-letter destination), to read a stored envelope again (a
/// durable inbox's replay), and to write a published message.
/// </summary>
internal sealed class ProtobufMessageSerializer(ProtobufTopic topic) : IAsyncMessageSerializer, IUnwrapsMetadataMessageSerializer
{
    /// <summary>The content type of records framed for a schema registry, as this package stamps them on envelopes.</summary>
    public const string FramedProtobuf = "application/vnd.kafkaprotobuf.framed";

    /// <summary>Why each envelope could not be read, for its dead letter (an envelope replayed from storage is read again instead).</summary>
    private readonly ConditionalWeakTable<Envelope, Exception> _failures = new();

    public string ContentType => FramedProtobuf;

    /// <summary>The mapper could not read the envelope's record: <see cref="Unwrap"/> throws this for it.</summary>
    public void RecordFailure(Envelope envelope, Exception failure) => _failures.AddOrUpdate(envelope, failure);

    /// <summary>Why the envelope could not be read, if this serializer saw it fail.</summary>
    public bool TryGetFailure(Envelope envelope, out Exception? failure) => _failures.TryGetValue(envelope, out failure);

    /// <summary>
    /// An envelope the mapper left without a message: read it now, and throw what reading throws (the record is bad
    /// data: Wolverine dead-letters it).
    /// </summary>
    public void Unwrap(Envelope envelope)
    {
        if (_failures.TryGetValue(envelope, out Exception? failure))
        {
            ExceptionDispatchInfo.Throw(failure); // as the mapper met it: read again, an outage since would pass for bad data
        }

        try
        {
            // Read here only when the mapper did not (an envelope from storage): a failing registry is waited out here too.
            ProtobufMessage? message = ReaderOrThrow().ReadWaitingOutOutages(envelope.Data, envelope.TopicName ?? topic.TopicName, RecordHeadersOf(envelope), topic.Stopping);
            Load(envelope, message ?? throw new InvalidOperationException("The record has no value to handle."));
        }
        catch (Exception e)
        {
            RecordFailure(envelope, e);
            throw;
        }
    }

    public object ReadFromData(Type messageType, Envelope envelope) =>
        Checked(messageType, ReaderOrThrow().ReadWaitingOutOutages(envelope.Data, envelope.TopicName ?? topic.TopicName, RecordHeadersOf(envelope), topic.Stopping));

    public async ValueTask<object?> ReadFromDataAsync(Type messageType, Envelope envelope) =>
        Checked(messageType, await ReaderOrThrow().ReadWaitingOutOutagesAsync(
            envelope.Data, envelope.TopicName ?? topic.TopicName, RecordHeadersOf(envelope), topic.Stopping).ConfigureAwait(false));

    public object ReadFromData(byte[] data) =>
        ReaderOrThrow().Read(data, topic.TopicName, new Confluent.Kafka.Headers()) ?? throw new InvalidOperationException("The record has no value to handle.");

    public byte[] Write(Envelope envelope) => WriterOrThrow().Write(envelope, topic.TopicFor(envelope));

    public ValueTask<byte[]> WriteAsync(Envelope envelope) => WriterOrThrow().WriteAsync(envelope, topic.TopicFor(envelope));

    public byte[] WriteMessage(object message) => WriterOrThrow().WriteMessage(message, topic.TopicFor(new Envelope()));

    /// <summary>Gives the envelope the message read from its record, and the message type Wolverine routes and stores it by.</summary>
    internal static void Load(Envelope envelope, ProtobufMessage message)
    {
        envelope.Message = message;
        envelope.MessageType = message.GetType().ToMessageTypeName();
    }

    /// <summary>The record's own headers, exactly as read (they may carry the schema id); none if the envelope does not carry them.</summary>
    internal static Confluent.Kafka.Headers RecordHeadersOf(Envelope envelope) => RecordHeaders.Of(envelope) ?? [];

    private static object Checked(Type messageType, ProtobufMessage? message) => message switch
    {
        null => throw new InvalidOperationException("The record has no value to handle."),
        _ when !messageType.IsInstanceOfType(message) => throw new InvalidOperationException(
            "The record is a " + message.Descriptor.FullName + ", not the " + messageType.FullName + " its envelope names."),
        _ => message,
    };

    private ProtobufReader ReaderOrThrow() => topic.Reader
        ?? throw new InvalidOperationException("Topic " + topic.TopicName + " is published with WriteProtobuf but not read with ReadProtobuf.");

    private Writing.ProtobufWriter WriterOrThrow() => topic.Writer
        ?? throw new InvalidOperationException("Topic " + topic.TopicName + " is read with ReadProtobuf but not published with WriteProtobuf.");
}
