using System;

namespace KafkaProtobuf.Framing;

/// <summary>
/// A record's key or value as Schema Registry framing describes it: the writer's schema identifier, where it was
/// found, the message-index path and the Protobuf payload. A view over the caller's bytes; nothing is copied.
/// </summary>
public readonly ref struct Frame
{
    internal Frame(SchemaIdentifier schemaId, SchemaIdPlacement placement, MessageIndexPath messageIndexPath, ReadOnlySpan<byte> payload, int payloadOffset)
    {
        SchemaId = schemaId;
        SchemaIdPlacement = placement;
        MessageIndexPath = messageIndexPath;
        Payload = payload;
        PayloadOffset = payloadOffset;
    }

    /// <summary>The writer's schema id or GUID.</summary>
    public SchemaIdentifier SchemaId { get; }

    /// <summary>Whether the schema identifier and path came from the record's prefix or from its schema-id header.</summary>
    public SchemaIdPlacement SchemaIdPlacement { get; }

    /// <summary>The message-index path: which message type of the writer's .proto file the payload is.</summary>
    public MessageIndexPath MessageIndexPath { get; }

    /// <summary>The Protobuf payload: a slice of the record's data, possibly empty (an all-default message).</summary>
    public ReadOnlySpan<byte> Payload { get; }

    /// <summary>Where the message-index path starts: right after the magic byte and the 4-byte id or 16-byte GUID.</summary>
    internal int MessageIndexPathOffset => SchemaId.Kind == SchemaIdKind.Guid ? 17 : 5;

    /// <summary>Which bytes the schema identifier and path were read from.</summary>
    internal FrameErrorLocation SchemaIdLocation =>
        SchemaIdPlacement == SchemaIdPlacement.Header ? FrameErrorLocation.SchemaIdHeader : FrameErrorLocation.RecordData;

    /// <summary>Where <see cref="Payload"/> starts in the record's data: the prefix length, or 0 when the schema id was in a header.</summary>
    public int PayloadOffset { get; }
}
