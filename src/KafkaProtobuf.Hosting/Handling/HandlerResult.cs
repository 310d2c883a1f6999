using System;

namespace KafkaProtobuf.Hosting.Handling;

/// <summary>
/// What became of a record in the handler's hands: an outcome and, unless handled, the exception behind it.
/// <c>default</c> is handled.
/// </summary>
internal readonly struct HandlerResult(HandlerOutcome outcome, Exception? failure, bool attemptsRanOut = false)
{
    public HandlerOutcome Outcome { get; } = outcome;

    public Exception? Failure { get; } = failure;

    /// <summary>
    /// The handler failed until its attempts ran out (a retry topic's turn, if there is one), rather than
    /// <c>Classify</c> deciding at once.
    /// </summary>
    public bool AttemptsRanOut { get; } = attemptsRanOut;
}

/// <summary>What a handler made of a record, for the loop to conclude.</summary>
internal enum HandlerOutcome
{
    /// <summary>It completed: store the offset.</summary>
    Handled,

    /// <summary>It failed for good and the policy is to dead-letter the record.</summary>
    DeadLetter,

    /// <summary>It failed for good and the policy is to stop the consumer.</summary>
    Stop,

    /// <summary>Shutdown cancelled it: nothing is stored, and the record is read again.</summary>
    Cancelled,
}
