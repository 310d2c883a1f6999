using System;

namespace KafkaProtobuf.Hosting;

/// <summary>What became of a record in the handler's hands, for the loop to conclude (store, dead-letter, stop).</summary>
internal enum HandlerOutcome
{
    Handled,
    DeadLetter,
    Stop,
    Cancelled,
}

/// <summary>An outcome and, unless handled, the exception behind it. <c>default</c> is handled.</summary>
internal readonly struct HandlerResult(HandlerOutcome outcome, Exception? failure)
{
    public HandlerOutcome Outcome { get; } = outcome;

    public Exception? Failure { get; } = failure;
}

/// <summary>What the loop does after concluding a record.</summary>
internal enum Next
{
    /// <summary>Take the next record.</summary>
    Continue,

    /// <summary>The consumer was moved back to the record (its dead letter failed): back off, then it comes again.</summary>
    ReadAgain,

    /// <summary>Stop the consumer.</summary>
    Stop,
}

/// <summary>What one consume brought (<c>Take</c>).</summary>
internal enum Taken
{
    Record,
    Poison,
    SchemaUnavailable,
    Nothing,
    Failed,
    Stopping,
}
