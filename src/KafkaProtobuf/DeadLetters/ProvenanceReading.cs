namespace KafkaProtobuf.DeadLetters;

/// <summary>What a record's blocks say, as <see cref="ProvenanceReader"/> reads them: one answer for a dead letter and for a record read from a retry tier.</summary>
internal sealed class ProvenanceReading
{
    public ProvenanceStatus Status { get; set; }

    /// <summary>Why the blocks are not believed (<see cref="ProvenanceStatus.Unverified"/>), in words.</summary>
    public string? Problem { get; set; }

    /// <summary>Where the record was first read; null when nothing believed says (and for a record read from a tier with no hop before it).</summary>
    public (string Topic, int? Partition, long? Offset)? Source { get; set; }

    // The failure of the last block, a dead letter's, when it is believed.
    public string? ErrorCode { get; set; }

    public string? ErrorMessage { get; set; }

    public int? ErrorOffset { get; set; }

    public string? Component { get; set; }

    public int RedriveCount { get; set; }

    /// <summary>Where the record's own headers end, a believed redrive's block left out.</summary>
    public int OriginalEnd { get; set; }

    /// <summary>Where the record's own headers end, for a block a writer appends now: a redrive's block counts as its own.</summary>
    public int Own { get; set; }

    /// <summary>For a record read from a tier: when the hop that wrote it there said it is due (Unix milliseconds).</summary>
    public long? Due { get; set; }

    public bool Believed => Status is ProvenanceStatus.Unchecked or ProvenanceStatus.Verified;
}
