namespace KafkaProtobuf.DeadLetters;

/// <summary>How far a record's provenance (where it was first read, how often it was redriven) is believed, as <see cref="ProvenanceCodec"/> read it.</summary>
public enum ProvenanceStatus
{
    /// <summary>No block of this package's: nothing says where the record came from.</summary>
    None = 0,

    /// <summary>
    /// Believed without a check: its blocks are unsigned, or were read without <see cref="ProvenanceKeys"/>. Then only who
    /// may write the retry and dead-letter topics keeps a forged block out (docs/dead-letters.md).
    /// </summary>
    Unchecked = 1,

    /// <summary>Every block its provenance rests on is signed, and verified with one of the reader's keys.</summary>
    Verified = 2,

    /// <summary>
    /// Not believed: a block its provenance rests on does not verify (forged, altered after it was signed, or signed with a
    /// key the reader does not have), is unsigned where a signature is needed, is malformed, or contradicts the block
    /// after it. It has no source and is never redriven.
    /// </summary>
    Unverified = 3,
}
