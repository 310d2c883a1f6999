using System.Collections.Generic;
using System.Diagnostics;
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
    // With nothing to read, how long a consume waits before the loop looks for operators' requests again.
    private static readonly System.TimeSpan OperatorRequestWait = System.TimeSpan.FromMilliseconds(200);

    private readonly LoopContext<TKey, TValue> _context;
    private readonly HandlerRunner<ConsumeResult<TKey, TValue>> _handler;

    internal SequentialLoop(LoopContext<TKey, TValue> context, HandlerRunner<ConsumeResult<TKey, TValue>> handler)
    {
        _context = context;
        _handler = handler;
    }

    public ConsumerFailure? Run()
    {
        LoopContext<TKey, TValue> context = _context;
        while (!context.Stopping.IsCancellationRequested)
        {
            context.ApplyOperatorRequests();
            Consumed consumed = context.Consume(OperatorRequestWait, out ConsumeResult<TKey, TValue>? record, out ConsumeException? unread);
            AfterConclusion after;
            switch (consumed)
            {
                case Consumed.Record:
                {
                    using Activity? activity = context.Tracing.Start(record!);
                    HandlerResult result = context.TryTakeUnwritten(record!, out HandlerResult failed)
                        ? failed
                        : LoopContext<TKey, TValue>.Completed(_handler.RunAsync(record!, activity));
                    after = context.Conclusion.Conclude(record!, result, activity, ownBytes: null);
                    break;
                }

                case Consumed.Poison or Consumed.SchemaUnavailable:
                    after = context.ConcludeUnread(consumed, unread!);
                    break;
                case Consumed.Nothing:
                    continue;
                default:
                    return context.EndOf(consumed); // stopping, or failed
            }

            if (!context.GoOnAfter(after))
            {
                return after.Failure;
            }
        }

        return null;
    }

    /// <summary>No record is held between consumes; what a copy not written left behind is forgotten.</summary>
    public ConsumerFailure? Revoke(IReadOnlyList<TopicPartition> partitions)
    {
        _context.LetGo(partitions);
        return null;
    }
}
