namespace KafkaProtobuf.DeadLetters;

/// <summary>What became of the offset past a record once its copy was written (<see cref="CopyResult.Offset"/>).</summary>
public enum OffsetOutcome
{
    /// <summary>
    /// The offset past the record is stored; the consumer's next commit carries it. (With
    /// <c>EnableAutoOffsetStore = true</c> the consumer had stored it itself when it returned the record.)
    /// </summary>
    Stored = 0,

    /// <summary>The offset past the record is stored and committed (<see cref="DeadLetterOffsetHandling.StoreAndCommit"/>).</summary>
    Committed = 1,

    /// <summary>
    /// The offset could not be stored, nor committed: the partition is no longer assigned to this consumer (revoked or
    /// lost in a rebalance). Its new owner consumes the record again and dead-letters it a second time; at least once,
    /// never lost. <see cref="CopyResult.OffsetError"/> says why.
    /// </summary>
    NotStored = 2,

    /// <summary>
    /// <see cref="DeadLetterOffsetHandling.StoreAndCommit"/>: the offset is stored but the commit failed (e.g.
    /// <c>RebalanceInProgress</c>, <c>IllegalGeneration</c>, <c>UnknownMemberId</c>, a timeout). The next successful
    /// commit carries it; if the partition moves to another member first, that member consumes the record again.
    /// <see cref="CopyResult.OffsetError"/> says why.
    /// </summary>
    NotCommitted = 3,
}
