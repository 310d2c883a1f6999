namespace KafkaProtobuf.Tool.Decoding;

/// <summary>What the framing of one key or value said, or why it could not be read.</summary>
internal sealed record FramingResult(
    SchemaIdentifier SchemaId, SchemaIdPlacement Placement, int[] Path, int PayloadOffset, int PayloadLength, FrameError? Error);

/// <summary>A key or value taken apart: its framing, then its payload decoded from the writer's schema when one is at hand.</summary>
internal sealed record DecodedPart(FramingResult Framing, string? TypeName, string? Json, string? Problem, string? Hint = null)
{
    /// <summary>True when the part could not be read: bad framing, an unknown type, a payload that does not decode.</summary>
    public bool IsBad => Framing.Error is not null || Problem is not null;
}
