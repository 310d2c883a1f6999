using System.Diagnostics;
using Confluent.Kafka;

namespace KafkaProtobuf.Hosting;

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
                    after = Conclude(record!, Handle(record!, activity), activity, ownBytes: null);
                    break;
                }

                case Consumed.Poison:
                {
                    using Activity? activity = _tracing.StartPoison(unread!);
                    after = DeadLetterPoison(unread!, activity);
                    break;
                }

                case Consumed.SchemaUnavailable:
                    // Not bad data: nothing is stored past it; go back to it and read it again after a delay.
                    _consumer!.Seek(unread!.ConsumerRecord.TopicPartitionOffset);
                    _probe?.MovedBack(Name, unread.ConsumerRecord.TopicPartitionOffset, schemaUnavailable: true);
                    after = AfterConclusion.ReadAgain;
                    break;
                case Consumed.Nothing:
                    continue;
                default:
                    return; // stopping, or failed
            }

            if (after == AfterConclusion.Stop || (after == AfterConclusion.ReadAgain && !SleepUnlessStopping(_options.ReadAgainDelay)))
            {
                return;
            }
        }
    }

    /// <summary>Runs the handler on the loop thread until it completes or fails for good.</summary>
    private HandlerResult Handle(ConsumeResult<TKey, TValue> record, Activity? activity)
    {
        System.Threading.Tasks.ValueTask<HandlerResult> run = _handler.RunAsync(record, activity);
        return run.IsCompletedSuccessfully ? run.Result : run.AsTask().GetAwaiter().GetResult();
    }
}
