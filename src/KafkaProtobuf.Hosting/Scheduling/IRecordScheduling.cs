using System.Threading.Tasks;
using KafkaProtobuf.Hosting.Handling;

namespace KafkaProtobuf.Hosting.Scheduling;

/// <summary>
/// What the scheduler asks of the consumer: the whole surface between them. Only <see cref="HandleAsync"/> is called on
/// workers' threads; the rest on the loop thread, which alone touches the Kafka consumer.
/// </summary>
/// <typeparam name="TRecord">The consumer's record type.</typeparam>
internal interface IRecordScheduling<TRecord> : IPartitionFetching
    where TRecord : ScheduledWork
{
    /// <summary>Runs the record's handler, retries included; never throws (a failure is its result).</summary>
    ValueTask<HandlerResult> HandleAsync(TRecord record);

    /// <summary>The scheduler keeps the record past the call that offered it (it waits, or its handler awaits): it must stop borrowing the loop's buffers.</summary>
    void Retain(TRecord record);

    /// <summary>Concludes the record (store its offset, dead-letter it, or stop), once it and every earlier record of its partition are done.</summary>
    AfterConclusion Conclude(TRecord record);

    /// <summary>The record will not be concluded: its partition was taken away or moved back before it, so it is read again.</summary>
    void Drop(TRecord record);
}
