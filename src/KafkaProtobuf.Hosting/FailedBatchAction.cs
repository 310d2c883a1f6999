namespace KafkaProtobuf.Hosting;

/// <summary>What a hosted consumer does with a batch whose handler failed for good.</summary>
public enum FailedBatchAction
{
    /// <summary>
    /// Run the batch's records again one at a time (each as a batch of one, with the same retries), so that only the
    /// records that still fail are dead-lettered, or stop the consumer, as <see cref="HandlerFailureOptions.WhenAttemptsRunOut"/>
    /// says. The default: one bad record (a constraint violation, a value the handler rejects) usually fails a whole
    /// batch, and dead-lettering the good records with it would leave them for someone to replay by hand. The cost, up
    /// to one more handler run per record and their retries, is paid only by a batch that failed for good.
    /// </summary>
    Split = 0,

    /// <summary>
    /// Every record of the batch goes as <see cref="HandlerFailureOptions.WhenAttemptsRunOut"/> says, with the batch's
    /// exception: all dead-lettered, or the consumer stops. For handlers whose batches fail as a whole (a downstream
    /// outage) and whose records are replayed from the dead-letter topic anyway.
    /// </summary>
    WholeBatch = 1,
}
