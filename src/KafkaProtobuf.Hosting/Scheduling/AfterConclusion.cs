using System;
using KafkaProtobuf.Hosting.Consuming;

namespace KafkaProtobuf.Hosting.Scheduling;

/// <summary>
/// What follows a record's conclusion (or a batch's): the next record, the record read again, or the end, at shutdown
/// or with the failure that stops the consumer for good. The failure travels with it: whoever ends the loop returns it.
/// </summary>
internal readonly struct AfterConclusion
{
    private readonly Next _next;

    private AfterConclusion(Next next, ConsumerFailure? failure)
    {
        _next = next;
        Failure = failure;
    }

    private enum Next
    {
        Continue,
        ReadAgain,
        ShutDown,
        Fail,
    }

    /// <summary>Take the next record.</summary>
    public static AfterConclusion Continue => default;

    /// <summary>The consumer was moved back to the record (its copy was not written): wait, then it comes again.</summary>
    public static AfterConclusion ReadAgain => new(Next.ReadAgain, null);

    /// <summary>Shutting down (the handler was cancelled): nothing of it is stored, it is read again.</summary>
    public static AfterConclusion ShutDown => new(Next.ShutDown, null);

    /// <summary>Whether the next record is taken.</summary>
    public bool IsContinue => _next == Next.Continue;

    /// <summary>Whether the record is read again.</summary>
    public bool IsReadAgain => _next == Next.ReadAgain;

    /// <summary>Whether the loop ends: at shutdown, or failed (<see cref="Failure"/>).</summary>
    public bool Ends => _next >= Next.ShutDown;

    /// <summary>Why the consumer stops for good; null unless it does.</summary>
    public ConsumerFailure? Failure { get; }

    /// <summary>The consumer stops for good, for this reason.</summary>
    public static AfterConclusion Fail(string reason, Exception? exception) => Fail(new ConsumerFailure(reason, exception));

    /// <summary>The consumer stops for good, with this failure.</summary>
    public static AfterConclusion Fail(ConsumerFailure failure) => new(Next.Fail, failure);

    /// <inheritdoc/>
    public override string ToString() => Failure is { } failure ? "Fail: " + failure.Reason : _next.ToString();
}
