namespace KafkaProtobuf.Hosting;

/// <summary>What a hosted consumer does with a record whose handler threw.</summary>
public enum HandlerFailureAction
{
    /// <summary>
    /// Run the handler again after a back-off, until <see cref="HandlerFailureOptions.MaxAttempts"/> attempts; then
    /// <see cref="HandlerFailureOptions.WhenAttemptsRunOut"/>. Nothing is committed past the record meanwhile.
    /// </summary>
    Retry = 0,

    /// <summary>
    /// Copy the record, byte for byte, to the dead-letter topic with the exception's type and message in
    /// <c>kafkaprotobuf.error.*</c> headers (component <c>handler</c>), then move past it.
    /// </summary>
    DeadLetter = 1,

    /// <summary>Stop the consumer without moving past the record (and, by default, the application): it is read again on restart.</summary>
    StopConsumer = 2,
}
