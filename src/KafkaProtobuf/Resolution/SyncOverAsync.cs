using System;
using System.Threading.Tasks;

namespace KafkaProtobuf.Resolution;

/// <summary>
/// The one place a synchronous Confluent.Kafka (de)serializer waits for asynchronous work: the first record of a new
/// schema, whose file or registration comes from a registry. Shared as source with KafkaProtobuf.SchemaRegistry.
/// </summary>
internal static class SyncOverAsync
{
    /// <summary>
    /// Runs <paramref name="start"/> on the thread pool and waits for it: off the caller's synchronization context, so
    /// that a continuation needing that context cannot deadlock the wait. Its exception is rethrown as is.
    /// </summary>
    internal static T Wait<T>(Func<Task<T>> start) => Task.Run(start).GetAwaiter().GetResult();
}
