using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;

namespace KafkaProtobuf.Hosting;

/// <summary>
/// Handles one record of a hosted consumer. Resolved from the service provider in a new scope for every record (so it
/// may take scoped services, such as a database context); a delegate given to the builder's <c>Handle</c> does the same
/// without a type.
/// </summary>
/// <typeparam name="TKey">The record's key type.</typeparam>
/// <typeparam name="TValue">The record's value type.</typeparam>
public interface IRecordHandler<TKey, TValue>
{
    /// <summary>
    /// Handles the record. Its offset is stored (and committed with the next auto-commit) only after the returned task
    /// completes; an exception is retried, dead-lettered or stops the consumer, as
    /// <see cref="KafkaProtobufConsumerOptions.HandlerFailures"/> says.
    /// </summary>
    /// <param name="record">The record: key, value, headers, timestamp, topic, partition and offset.</param>
    /// <param name="cancellationToken">Cancelled when the host's shutdown timeout runs out while the handler is still running.</param>
    /// <returns>A task that completes when the record is handled.</returns>
    Task HandleAsync(ConsumeResult<TKey, TValue> record, CancellationToken cancellationToken);
}
