using System;

namespace KafkaProtobuf.Hosting;

/// <summary>Why a partition of a hosted consumer is paused (not fetching); several may hold it at once.</summary>
[Flags]
public enum PartitionPauses
{
    /// <summary>Fetching.</summary>
    None = 0,

    /// <summary>
    /// Records taken and not yet concluded used up <see cref="KafkaProtobufConsumerOptions.MaxReadAheadBytes"/>; it
    /// resumes once half of the budget is free.
    /// </summary>
    ReadAheadBudget = 1,

    /// <summary>A record's writer's schema could not be obtained (the registry failed): the record is read again when due.</summary>
    SchemaUnavailable = 2,

    /// <summary>A retry topic's record is not due yet: it is read again when due.</summary>
    RetryNotDue = 4,

    /// <summary>A record's copy (dead letter or retry copy) was not written: the record is read again when due.</summary>
    CopyNotWritten = 8,

    /// <summary>
    /// An operator paused it (<see cref="KafkaProtobufConsumerOperations.PauseAsync"/>); it waits for a resume.
    /// </summary>
    Operator = 16,
}
