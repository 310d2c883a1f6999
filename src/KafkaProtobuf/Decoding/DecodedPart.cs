using System;
using System.Collections.Generic;
using Google.Protobuf.Reflection;

namespace KafkaProtobuf.Decoding;

/// <summary>
/// A framed key or value taken apart by <see cref="WriterSchemaDecoder"/>: its framing, the writer's type its
/// message-index path names, its payload as proto3 JSON, or what was wrong, with the library's error code and offset.
/// </summary>
public sealed class DecodedPart
{
    private static readonly int[] NoIndexes = [];

    internal DecodedPart(
        FrameError? error,
        string? errorMessage,
        SchemaIdentifier schemaId,
        SchemaIdPlacement? placement,
        int[]? messageIndexPath,
        int payloadOffset,
        int payloadLength,
        MessageDescriptor? writerType,
        string? json,
        MessageDescriptor? otherOrderType)
    {
        Error = error;
        ErrorMessage = errorMessage;
        SchemaId = schemaId;
        SchemaIdPlacement = placement;
        MessageIndexPath = Array.AsReadOnly(messageIndexPath ?? NoIndexes);
        PayloadOffset = payloadOffset;
        PayloadLength = payloadLength;
        WriterType = writerType;
        Json = json;
        OtherOrderType = otherOrderType;
    }

    /// <summary>
    /// What was wrong, where, and under which schema identifier: a framing fault (the framing was not read), or
    /// <see cref="FrameErrorCode.UnknownSchemaId"/>, <see cref="FrameErrorCode.UnusableWriterSchema"/>,
    /// <see cref="FrameErrorCode.UnknownMessageType"/> (the path names no message, or a map's entry type),
    /// <see cref="FrameErrorCode.AmbiguousMessageIndexOrder"/>, <see cref="FrameErrorCode.UnexpectedMessageType"/> (not
    /// the type asked for) or <see cref="FrameErrorCode.InvalidPayload"/> (its offset is the failing byte's);
    /// <see langword="null"/> when nothing was wrong.
    /// </summary>
    public FrameError? Error { get; }

    /// <summary>What was wrong, in a sentence (text from the record or its schema is quoted as it is: make it inert to show it); <see langword="null"/> when nothing was.</summary>
    public string? ErrorMessage { get; }

    /// <summary>Whether the bytes are bad data: <see cref="Error"/> is set.</summary>
    public bool IsBad => Error is not null;

    /// <summary>Whether the framing was read (the schema identifier, its placement, the path and the payload's place are known).</summary>
    public bool IsFramed => Error is not { } error || FrameErrorCodes.StageOf(error.Code) != FrameErrorCodes.Stage.Framing;

    /// <summary>The writer's schema id or GUID, when it was read before any fault.</summary>
    public SchemaIdentifier SchemaId { get; }

    /// <summary>Whether the schema identifier came from the record's prefix or its schema-id header; <see langword="null"/> when the framing was not read.</summary>
    public SchemaIdPlacement? SchemaIdPlacement { get; }

    /// <summary>The message-index path as the record wrote it (as <c>Frame.MessageIndexPath</c>); empty when the framing was not read.</summary>
    public IReadOnlyList<int> MessageIndexPath { get; }

    /// <summary>Where the payload starts in the bytes (0 when the framing was not read).</summary>
    public int PayloadOffset { get; }

    /// <summary>The payload's length (0 when the framing was not read).</summary>
    public int PayloadLength { get; }

    /// <summary>The writer's message type the path names, when the writer's schema was found and the path names one.</summary>
    public MessageDescriptor? WriterType { get; }

    /// <summary>
    /// The payload as proto3 JSON (JSON names, enums by name, 64-bit integers as strings, unknown fields under
    /// <c>"@unknown"</c>), with control, bidirectional and line-separator characters escaped; <see langword="null"/> when
    /// it was not decoded (an error, or no schema source).
    /// </summary>
    public string? Json { get; }

    /// <summary>
    /// The type the path names read in the other order (innermost first when read root first, and the other way), when
    /// that is a type other than <see cref="WriterType"/>, and, for a payload that did not decode as
    /// <see cref="WriterType"/>, only when it decodes as this: a record from Confluent's .NET serializer 2.10.1 to 2.11.0,
    /// which wrote nested types' paths innermost first, may be read in the wrong order.
    /// </summary>
    public MessageDescriptor? OtherOrderType { get; }
}
