using System.Collections.Generic;
using System.Diagnostics;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Consuming;
using KafkaProtobuf.Hosting.Handling;
using KafkaProtobuf.Hosting.Scheduling;

namespace KafkaProtobuf.Hosting.Loops;

/// <summary>
/// Sequential mode (<see cref="KafkaProtobufConsumerOptions.MaxConcurrentHandlers"/> 1, the default): the loop thread
/// handles one record at a time, in the order Consume gives them, and concludes each before it takes the next.
/// </summary>
internal sealed class SequentialLoop<TKey, TValue> : IConsumeLoop
{
    private readonly LoopParts<TKey, TValue> _parts;
    private readonly HandlerRunner<ConsumeResult<TKey, TValue>> _handler;

    internal SequentialLoop(LoopParts<TKey, TValue> parts, HandlerRunner<ConsumeResult<TKey, TValue>> handler)
    {
        _parts = parts;
        _handler = handler;
    }

    public long MostHeldBytes => 0;

    public void Run()
    {
        while (!_parts.Stopping.IsCancellationRequested)
        {
            Consumed consumed = _parts.Consume(null, out ConsumeResult<TKey, TValue>? record, out ConsumeException? unread);
            AfterConclusion after;
            switch (consumed)
            {
                case Consumed.Record:
                {
                    using Activity? activity = _parts.Tracing.Start(record!);
                    HandlerResult result = _parts.Conclusion.Unwritten.TryTake(record!.Topic, record.Partition, record.Offset, out HandlerResult failed) ? failed : Handle(record, activity);
                    after = _parts.Conclusion.Conclude(record, result, activity, ownBytes: null);
                    break;
                }

                case Consumed.Poison or Consumed.SchemaUnavailable:
                    after = _parts.ConcludeUnread(consumed, unread!);
                    break;
                case Consumed.Nothing:
                    continue;
                default:
                    return; // stopping, or failed
            }

            if (!_parts.GoOnAfter(after))
            {
                return;
            }
        }
    }

    // Nothing is held between consumes.
    public bool Revoke(IReadOnlyList<TopicPartition> partitions) => true;

    /// <summary>Runs the handler on the loop thread until it completes or fails for good.</summary>
    private HandlerResult Handle(ConsumeResult<TKey, TValue> record, Activity? activity)
    {
        ValueTask<HandlerResult> run = _handler.RunAsync(record, activity);
        return run.IsCompletedSuccessfully ? run.Result : run.AsTask().GetAwaiter().GetResult();
    }
}
