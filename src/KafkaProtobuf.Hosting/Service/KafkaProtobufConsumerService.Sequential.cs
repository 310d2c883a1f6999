using System.Diagnostics;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Consuming;
using KafkaProtobuf.Hosting.Handling;
using KafkaProtobuf.Hosting.Scheduling;

namespace KafkaProtobuf.Hosting.Service;

/// <summary>
/// Sequential mode (<see cref="KafkaProtobufConsumerOptions.MaxConcurrentRecords"/> 1, the default): the loop thread
/// handles one record at a time, in the order Consume gives them, and concludes each before it takes the next. Only
/// the scheduling differs from partition-parallel mode: the handler, the conclusion and the consume step are shared.
/// </summary>
internal sealed partial class KafkaProtobufConsumerService<TKey, TValue>
{
    private void RunSequential()
    {
        while (!_stopTaking.IsCancellationRequested)
        {
            Consumed consumed = Consume(null, out ConsumeResult<TKey, TValue>? record, out ConsumeException? unread);
            AfterConclusion after;
            switch (consumed)
            {
                case Consumed.Record:
                {
                    using Activity? activity = _tracing.Start(record!);
                    HandlerResult result = _conclusion!.Unwritten.TryTake(record!.Topic, record.Partition, record.Offset, out HandlerResult failed) ? failed : Handle(record, activity);
                    after = _conclusion!.Conclude(record, result, activity, ownBytes: null);
                    break;
                }

                case Consumed.Poison or Consumed.SchemaUnavailable:
                    after = ConcludeUnreadOnLoop(consumed, unread!);
                    break;
                case Consumed.Nothing:
                    continue;
                default:
                    return; // stopping, or failed
            }

            if (!GoOnAfter(after))
            {
                return;
            }
        }
    }

    /// <summary>
    /// A record the loop thread cannot hand to a handler: a poison record is dead-lettered; one whose writer's schema is
    /// unavailable is not bad data, so nothing is stored past it and the consumer goes back to it, to read it again.
    /// </summary>
    private AfterConclusion ConcludeUnreadOnLoop(Consumed consumed, ConsumeException unread)
    {
        if (consumed == Consumed.Poison)
        {
            return _conclusion!.DeadLetterPoison(unread);
        }

        _step!.ReadAgain(unread.ConsumerRecord.TopicPartitionOffset);
        return AfterConclusion.ReadAgain;
    }

    /// <summary>After a conclusion on the loop thread: whether the loop goes on (after the delay, when a record is read again).</summary>
    private bool GoOnAfter(AfterConclusion after) =>
        after != AfterConclusion.Stop && (after != AfterConclusion.ReadAgain || SleepUnlessStopping(_options.ReadAgainDelay));

    /// <summary>Runs the handler on the loop thread until it completes or fails for good.</summary>
    private HandlerResult Handle(ConsumeResult<TKey, TValue> record, Activity? activity)
    {
        System.Threading.Tasks.ValueTask<HandlerResult> run = _handler.RunAsync(record, activity);
        return run.IsCompletedSuccessfully ? run.Result : run.AsTask().GetAwaiter().GetResult();
    }
}
