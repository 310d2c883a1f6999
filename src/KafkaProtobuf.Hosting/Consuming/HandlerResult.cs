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
