using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;

namespace KafkaProtobuf.Hosting;

/// <summary>
/// Handles a hosted consumer's records a batch at a time (a bulk insert, one call for many records): up to
/// <see cref="BatchOptions.MaxSize"/> records, handed over when the batch is full or when its first record has waited
/// <see cref="BatchOptions.MaxWait"/>. Resolved from the service provider in a new scope for every batch; a delegate
/// given to the builder's <c>HandleBatch</c> does the same without a type.
/// </summary>
/// <typeparam name="TKey">The records' key type.</typeparam>
/// <typeparam name="TValue">The records' value type.</typeparam>
public interface IBatchHandler<TKey, TValue>
{
    /// <summary>
    /// Handles the batch. The records' offsets are stored (and committed with the next auto-commit) only after the
    /// returned task completes; an exception is retried for the whole batch, then handled as
    /// <see cref="BatchOptions.WhenBatchFails"/> says. Records that cannot be deserialized never appear here.
    /// </summary>
    /// <param name="records">
    /// The records, in the order they were read (one partition's unless <see cref="BatchOptions.AcrossPartitions"/>); at
    /// least one. The list is the consumer's: do not keep it past the returned task.
    /// </param>
    /// <param name="cancellationToken">Cancelled when the host's shutdown timeout runs out while the handler is still running.</param>
    /// <returns>A task that completes when every record of the batch is handled.</returns>
    Task HandleAsync(IReadOnlyList<ConsumeResult<TKey, TValue>> records, CancellationToken cancellationToken);
}
