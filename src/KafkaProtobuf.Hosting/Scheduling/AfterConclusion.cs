namespace KafkaProtobuf.Hosting.Scheduling;

/// <summary>What the loop does after concluding a record.</summary>
internal enum AfterConclusion
{
    /// <summary>Take the next record.</summary>
    Continue,

    /// <summary>The consumer was moved back to the record (its dead letter failed): wait, then it comes again.</summary>
    ReadAgain,

    /// <summary>Stop the consumer.</summary>
    Stop,
}
