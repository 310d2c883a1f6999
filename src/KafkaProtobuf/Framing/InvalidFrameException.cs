using System;
using System.Collections.Generic;
using System.IO;
using Confluent.Kafka;
using KafkaProtobuf.Framing;

namespace KafkaProtobuf;

/// <summary>
/// The one exception KafkaProtobuf throws for bad record data: malformed Schema Registry framing, or a payload the
/// Protobuf parser rejects. It says what was wrong (<see cref="ErrorCode"/>), where (<see cref="Offset"/> in
/// <see cref="Location"/>), in which component and topic, and under which schema identifier when that was read.
/// </summary>
/// <remarks>
/// It derives from <see cref="IOException"/>, like Google.Protobuf's own
/// <see cref="Google.Protobuf.InvalidProtocolBufferException"/>, which is the <see cref="Exception.InnerException"/>
/// for <see cref="FrameErrorCode.InvalidPayload"/>. Inside a Confluent.Kafka consumer it arrives wrapped in a
/// <c>ConsumeException</c> whose <c>ConsumerRecord</c> holds the raw key, value and headers.
/// The message never includes record bytes, and what it quotes from outside (a path, a name or message from the
/// writer's schema or its source) is cut to a bounded length.
/// </remarks>
public sealed class InvalidFrameException : IOException
{
    /// <summary>Creates the exception for an error found while reading a record component.</summary>
    /// <param name="error">What was wrong and where.</param>
    /// <param name="component">The component that was read (key or value).</param>
    /// <param name="topic">The record's topic, when known.</param>
    /// <param name="innerException">The parser's exception for <see cref="FrameErrorCode.InvalidPayload"/>, otherwise <see langword="null"/>.</param>
    public InvalidFrameException(FrameError error, MessageComponentType component, string? topic, Exception? innerException)
        : this(error, component, topic, null, null, innerException)
    {
    }

    /// <summary>Creates the exception for an error found after the message-index path was read.</summary>
    /// <param name="error">What was wrong and where.</param>
    /// <param name="component">The component that was read (key or value).</param>
    /// <param name="topic">The record's topic, when known.</param>
    /// <param name="messageIndexPath">The record's message-index path, when it was read.</param>
    /// <param name="detail">What else the reader knew, e.g. the type expected; appended to the message.</param>
    /// <param name="innerException">The parser's exception for <see cref="FrameErrorCode.InvalidPayload"/>, otherwise <see langword="null"/>.</param>
    public InvalidFrameException(
        FrameError error,
        MessageComponentType component,
        string? topic,
        IReadOnlyList<int>? messageIndexPath,
        string? detail,
        Exception? innerException)
        : base(BuildMessage(error, component, topic, messageIndexPath, detail, innerException), innerException)
    {
        Error = error;
        Component = component;
        Topic = topic;
        MessageIndexPath = messageIndexPath;
    }

    /// <summary>The error as a value (code, offset, location, schema identifier).</summary>
    public FrameError Error { get; }

    /// <summary>What was wrong.</summary>
    public FrameErrorCode ErrorCode => Error.Code;

    /// <summary>The byte offset at which the fault was found, counted in the bytes <see cref="Location"/> names.</summary>
    public int Offset => Error.Offset;

    /// <summary>Whether the fault is in the record's data or in its schema-id header value.</summary>
    public FrameErrorLocation Location => Error.Location;

    /// <summary>The schema identifier, when it was read before the fault; <see cref="SchemaIdKind.None"/> otherwise.</summary>
    public SchemaIdentifier SchemaId => Error.SchemaId;

    /// <summary>The component that was read: key or value (0 when the caller gave no serialization context).</summary>
    public MessageComponentType Component { get; }

    /// <summary>The record's topic, when the caller's serialization context named one.</summary>
    public string? Topic { get; }

    /// <summary>The record's message-index path, for faults found after it was read; otherwise <see langword="null"/>.</summary>
    public IReadOnlyList<int>? MessageIndexPath { get; }

    private static string BuildMessage(
        FrameError error, MessageComponentType component, string? topic, IReadOnlyList<int>? messageIndexPath, string? detail, Exception? inner)
    {
        string what = component switch
        {
            MessageComponentType.Key => "key",
            MessageComponentType.Value => "value",
            _ => "record",
        };
        string of = string.IsNullOrEmpty(topic) ? string.Empty : " of topic '" + topic + "'";
        string path = messageIndexPath is null ? string.Empty : ", message-index path " + Framing.MessageIndexPath.Format(messageIndexPath, messageIndexPath.Count);
        // Names and messages from a writer's schema or its source are not ours to trust with a message's length.
        string more = string.IsNullOrEmpty(detail) ? string.Empty : "; " + BoundedText.Cut(detail);
        string cause = inner is null ? string.Empty : ": " + BoundedText.Cut(inner.Message, 2 * BoundedText.MessageChars);
        return "Cannot deserialize the " + what + of + " [" + error.Code + "]: " + error.Describe() + path + more + cause;
    }
}
