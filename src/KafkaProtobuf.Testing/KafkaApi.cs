namespace KafkaProtobuf.Testing;

/// <summary>
/// Kafka protocol request types (API keys), for <see cref="EmbeddedKafkaCluster"/>'s request faults and counts. The
/// values are the protocol's own API keys.
/// </summary>
public enum KafkaApi
{
    /// <summary>Produce: a producer writes records.</summary>
    Produce = 0,

    /// <summary>Fetch: a consumer reads records.</summary>
    Fetch = 1,

    /// <summary>ListOffsets: the earliest, latest or timestamp offset of a partition.</summary>
    ListOffsets = 2,

    /// <summary>Metadata: brokers, topics, partitions and their leaders.</summary>
    Metadata = 3,

    /// <summary>OffsetCommit: a consumer group commits offsets.</summary>
    OffsetCommit = 8,

    /// <summary>OffsetFetch: a consumer group reads its committed offsets.</summary>
    OffsetFetch = 9,

    /// <summary>FindCoordinator: which broker coordinates a group or transaction.</summary>
    FindCoordinator = 10,

    /// <summary>JoinGroup: a member joins (or rejoins) a consumer group, starting a rebalance.</summary>
    JoinGroup = 11,

    /// <summary>Heartbeat: a group member tells the coordinator it is alive.</summary>
    Heartbeat = 12,

    /// <summary>LeaveGroup: a member leaves its consumer group.</summary>
    LeaveGroup = 13,

    /// <summary>SyncGroup: the group's members receive their assignments.</summary>
    SyncGroup = 14,

    /// <summary>DescribeGroups.</summary>
    DescribeGroups = 15,

    /// <summary>ListGroups.</summary>
    ListGroups = 16,

    /// <summary>ApiVersions: the first request on every connection.</summary>
    ApiVersions = 18,

    /// <summary>InitProducerId: an idempotent or transactional producer gets its id.</summary>
    InitProducerId = 22,

    /// <summary>OffsetForLeaderEpoch: a consumer validates its position after a leader change.</summary>
    OffsetForLeaderEpoch = 23,

    /// <summary>AddPartitionsToTxn.</summary>
    AddPartitionsToTxn = 24,

    /// <summary>AddOffsetsToTxn.</summary>
    AddOffsetsToTxn = 25,

    /// <summary>EndTxn.</summary>
    EndTxn = 26,

    /// <summary>TxnOffsetCommit.</summary>
    TxnOffsetCommit = 28,

    /// <summary>ConsumerGroupHeartbeat: the KIP-848 consumer group protocol.</summary>
    ConsumerGroupHeartbeat = 68,
}
