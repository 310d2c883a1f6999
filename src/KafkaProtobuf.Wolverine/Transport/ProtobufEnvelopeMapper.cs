using System;
using System.Text;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Wolverine.Envelopes;
using Wolverine;
using Wolverine.Kafka;
using Wolverine.Kafka.Internals;
using Wolverine.Transports;
using ProtobufMessage = Google.Protobuf.IMessage;

namespace KafkaProtobuf.Wolverine.Transport;

/// <summary>
/// The endpoint's mapper between Kafka records and Wolverine envelopes. Incoming, it reads the record's Protobuf value
/// on the listener's consume loop (waiting out a schema-source outage there, so nothing after the record runs or is
/// committed meanwhile), keeps the record's headers exactly, and copies the ones that are text for handlers; it never
/// throws for a record (Wolverine's listener commits past a record whose mapping throws): a record it cannot read goes
/// on without a message, and the serializer's <c>Unwrap</c> throws the reason inside Wolverine's pipeline, whose error
/// handling dead-letters it. Outgoing, a record read here and written again (Wolverine's dead-letter queue) is written
/// with its own key, value and headers, then the library's dead-letter headers; a published message gets Wolverine's
/// headers and, as bytes, the ones its serializer wrote.
/// </summary>
internal sealed class ProtobufEnvelopeMapper(ProtobufTopic topic) : IKafkaEnvelopeMapper
{
    /// <summary>The body of Wolverine's sender ping (<c>Envelope.ForPing</c>), which no framed record can be.</summary>
    private static readonly byte[] PingBody = [1, 2, 3, 4];

    /// <summary>The message type given to a record the deserializer was told to skip (a type it does not read): no handler has it, so Wolverine passes it.</summary>
    internal const string SkippedMessageType = "kafkaprotobuf-skipped";

    private static readonly long MaxUnixMilliseconds = DateTimeOffset.MaxValue.ToUnixTimeMilliseconds();

    private readonly KafkaEnvelopeMapper _wolverineHeaders = new(topic.Endpoint);

    public void MapIncomingToEnvelope(Envelope envelope, Message<string, byte[]> incoming)
    {
        if (topic.Reader is null)
        {
            // A topic this package writes to but does not read (the dead-letter topic, a published topic): read as
            // Wolverine reads it, so a listener on it behaves as without this package.
            _wolverineHeaders.MapIncomingToEnvelope(envelope, incoming);
            return;
        }

        try
        {
            Read(envelope, incoming);
        }
        catch (OperationCanceledException) when (topic.Stopping.IsCancellationRequested)
        {
            throw; // the application stops during an outage: the listener ends without passing the record
        }
        catch (Exception e)
        {
            // Never out of the mapper (Wolverine's listener would commit past the record): whatever a record makes
            // fail here (a timestamp out of range, say) makes it fail in the pipeline instead, which dead-letters it.
            topic.Serializer.RecordFailure(envelope, e);
        }
    }

    private void Read(Envelope envelope, Message<string, byte[]> incoming)
    {
        envelope.Data = incoming.Value;
        envelope.ContentType = ProtobufMessageSerializer.FramedProtobuf;
        envelope.Serializer = topic.Serializer;
        Confluent.Kafka.Headers headers = incoming.Headers ?? [];
        envelope.Headers[EnvelopeHeaderNames.RecordHeaders] = RecordHeaders.Encode(headers);
        if (incoming.Key is null)
        {
            envelope.Headers[EnvelopeHeaderNames.NullKey] = "true";
        }

        foreach (IHeader header in headers)
        {
            if (EnvelopeHeaderNames.MayCopy(header.Key) && header.GetValueBytes() is { } value && RecordHeaders.IsText(value, out string text))
            {
                envelope.Headers[header.Key] = text; // the last of a name wins, as Wolverine's own mapper does
            }
        }

        // The writer's clock, when it is one DateTime can hold (a producer sets it: any long).
        if (incoming.Timestamp.Type is TimestampType.CreateTime or TimestampType.LogAppendTime
            && incoming.Timestamp.UnixTimestampMs >= 0 && incoming.Timestamp.UnixTimestampMs <= MaxUnixMilliseconds)
        {
            envelope.SentAt = incoming.Timestamp.UtcDateTime;
        }

        if (IsWolverinePing(headers, incoming.Value))
        {
            envelope.MessageType = Envelope.PingMessageType; // Wolverine's sender checking the topic: Wolverine drops it
            return;
        }

        ProtobufMessage? message = topic.Reader!.ReadWaitingOutOutages(incoming.Value, envelope.TopicName ?? topic.TopicName, headers, topic.Stopping);

        if (message is not null)
        {
            ProtobufMessageSerializer.Load(envelope, message);
        }
        else if (incoming.Value is null)
        {
            envelope.Message = new KafkaTombstone(incoming.Key!);
            envelope.MessageType = typeof(KafkaTombstone).FullName;
        }
        else
        {
            envelope.MessageType = SkippedMessageType;
        }
    }

    public void MapEnvelopeToOutgoing(Envelope envelope, Message<string, byte[]> outgoing)
    {
        if (envelope.Headers.TryGetValue(EnvelopeHeaderNames.RecordHeaders, out string? carried) && carried is not null)
        {
            WriteAgain(envelope, carried, outgoing);
            return;
        }

        _wolverineHeaders.MapEnvelopeToOutgoing(envelope, outgoing);
        foreach (string name in envelope.Headers.Keys)
        {
            if (name.StartsWith(EnvelopeHeaderNames.Prefix, StringComparison.Ordinal))
            {
                outgoing.Headers.Remove(name);
            }
        }

        foreach ((string name, string? value) in envelope.Headers)
        {
            if (name.StartsWith(EnvelopeHeaderNames.Outgoing, StringComparison.Ordinal) && value is not null)
            {
                outgoing.Headers.Add(name[EnvelopeHeaderNames.Outgoing.Length..], Convert.FromBase64String(value));
            }
        }
    }

    /// <summary>
    /// A record read here, written again: its key, value and headers as read; when Wolverine dead-letters it (it stamped
    /// the failure), the library's dead-letter headers after them, its source the topic, partition and offset the
    /// listener read it at, never what its own headers say.
    /// </summary>
    private static void WriteAgain(Envelope envelope, string carried, Message<string, byte[]> outgoing)
    {
        bool nullKey = envelope.Headers.ContainsKey(EnvelopeHeaderNames.NullKey);
        var record = new ConsumeResult<byte[], byte[]>
        {
            // Where the listener read it (this mapper may be the dead-letter topic's: never its own name).
            TopicPartitionOffset = new TopicPartitionOffset(
                envelope.TopicName ?? string.Empty, new Partition(envelope.PartitionId ?? Partition.Any.Value), new Offset(envelope.Offset)),
            Message = new Message<byte[], byte[]>
            {
                Key = nullKey || envelope.PartitionKey is null ? null! : Encoding.UTF8.GetBytes(envelope.PartitionKey),
                Value = envelope.Data!,
                Headers = RecordHeaders.Decode(carried),
            },
        };

        Message<byte[], byte[]> written = DeadLetterOf(envelope, record) ?? record.Message;
        outgoing.Key = nullKey ? null! : envelope.PartitionKey!;
        outgoing.Value = written.Value;
        outgoing.Headers = written.Headers;
    }

    private static Message<byte[], byte[]>? DeadLetterOf(Envelope envelope, ConsumeResult<byte[], byte[]> record)
    {
        // The serializer of the topic it was read from saw why (this mapper may be the dead-letter topic's).
        if (envelope.Serializer is ProtobufMessageSerializer reading && reading.TryGetFailure(envelope, out Exception? failure) && failure is InvalidFrameException frame)
        {
            return new ConsumeException(record, new Error(ErrorCode.Local_ValueDeserialization), frame).ToDeadLetterMessage();
        }

        if (envelope.Headers.TryGetValue(DeadLetterQueueConstants.ExceptionTypeHeader, out string? type) && type is not null)
        {
            envelope.Headers.TryGetValue(DeadLetterQueueConstants.ExceptionMessageHeader, out string? message);
            return record.ToDeadLetterMessage(type, message ?? string.Empty);
        }

        return null; // not a failure: written again as it was read
    }

    private static bool IsWolverinePing(Confluent.Kafka.Headers headers, byte[]? value) =>
        value is not null
        && value.AsSpan().SequenceEqual(PingBody)
        && headers.TryGetLastBytes(EnvelopeConstants.MessageTypeKey, out byte[] type)
        && Encoding.UTF8.GetString(type) == Envelope.PingMessageType;
}
