namespace KafkaProtobuf.Hosting;

/// <summary>What became of an operator's request to pause, resume or rewind a partition.</summary>
public enum PartitionActionResult
{
    /// <summary>Done by the consumer's loop.</summary>
    Applied = 0,

    /// <summary>No hosted consumer of that name runs in this process.</summary>
    UnknownConsumer = 1,

    /// <summary>The consumer is not running (starting, stopped or failed): nothing was done.</summary>
    NotRunning = 2,

    /// <summary>This member of the group does not hold the partition (another member may): nothing was done.</summary>
    NotAssigned = 3,

    /// <summary>
    /// A rewind to an offset the partition does not have, or past the consumer's position (a rewind reads records
    /// again; it never skips any): nothing was done.
    /// </summary>
    OffsetOutOfRange = 4,

    /// <summary>
    /// The consumer's loop did not take the request in time (a handler holds it, in sequential mode): it was withdrawn,
    /// nothing was done; ask again.
    /// </summary>
    Busy = 5,
}
