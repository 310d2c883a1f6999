using System;

namespace KafkaProtobuf.Hosting.Consuming;

/// <summary>
/// Why the consumer stops for good: what its health check and log say, and the exception behind it. Made where the
/// failure is met (a consume, a callback, a conclusion) and carried as data to the one place that reports it.
/// </summary>
internal sealed class ConsumerFailure
{
    public ConsumerFailure(string reason, Exception? exception)
    {
        Reason = reason;
        Exception = exception;
    }

    /// <summary>The reason, in words: the health check's and the log line's.</summary>
    public string Reason { get; }

    /// <summary>The exception behind it, if any.</summary>
    public Exception? Exception { get; }
}
