using System;

namespace KafkaProtobuf.Hosting;

/// <summary>
/// What a hosted consumer does when its handler throws: retried in place with exponential back-off and jitter (nothing
/// is committed past the record meanwhile), then dead-lettered or stopping, per exception if <see cref="Classify"/> says.
/// </summary>
public sealed class HandlerFailureOptions
{
    /// <summary>How many times a record's handler runs at most, the first included. Default 5.</summary>
    public int MaxAttempts { get; set; } = 5;

    /// <summary>
    /// The back-off after the first failure; each next one doubles, up to <see cref="MaxRetryBackoff"/>, and each is
    /// between half and all of that (jitter). Default 200 ms. (The registry client's options of the same names work alike.)
    /// </summary>
    public TimeSpan RetryBackoff { get; set; } = TimeSpan.FromMilliseconds(200);

    /// <summary>The longest back-off. Default 30 s.</summary>
    public TimeSpan MaxRetryBackoff { get; set; } = TimeSpan.FromSeconds(30);

    /// <summary>
    /// What happens once <see cref="MaxAttempts"/> attempts failed: <see cref="HandlerFailureAction.DeadLetter"/> (the
    /// default; without a dead-letter topic the consumer stops instead) or <see cref="HandlerFailureAction.StopConsumer"/>.
    /// </summary>
    public HandlerFailureAction WhenAttemptsRunOut { get; set; } = HandlerFailureAction.DeadLetter;

    /// <summary>
    /// Decides per exception: <see cref="HandlerFailureAction.Retry"/> (the default for any exception when this is
    /// <see langword="null"/> or returns <see langword="null"/>), or at once <see cref="HandlerFailureAction.DeadLetter"/>
    /// (say, a validation error no retry will fix) or <see cref="HandlerFailureAction.StopConsumer"/>.
    /// </summary>
    public Func<Exception, HandlerFailureAction?>? Classify { get; set; }
}
