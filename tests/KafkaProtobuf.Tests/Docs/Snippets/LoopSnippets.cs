using System;
using System.Threading;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Redrive;
using Shop.V1;

namespace KafkaProtobuf.Tests.Docs.Snippets;

/// <summary>The recommended consume loop as the docs show it (see ConsumingSnippets). Compiled, not run.</summary>
internal static class LoopSnippets
{
    private static void Handle(OrderPlaced order) => GC.KeepAlive(order);

    internal static void RecommendedLoop(IConsumer<string, OrderPlaced> consumer, IProducer<byte[], byte[]> deadLetterProducer, CancellationToken token)
    {
        #region recommended-loop
        // EnableAutoOffsetStore = false, auto-commit on: only what was handled (or dead-lettered) is committed.
        while (!token.IsCancellationRequested)
        {
            try
            {
                var result = consumer.Consume(token);
                Handle(result.Message.Value);
                consumer.StoreOffset(result);
            }
            catch (ConsumeException e) when (e.IsDeserializationFailure())
            {
                try
                {
                    // Copies key, value and headers byte for byte to the dead-letter topic, adds kafkaprotobuf.error.* and
                    // kafkaprotobuf.source.* headers, waits for the broker's ack, then stores the offset past the record.
                    consumer.DeadLetter(e, deadLetterProducer, "shop.orders.dlq", TimeSpan.FromSeconds(10));
                }
                catch (DeadLetterException d) when (d.IsRetriable)
                {
                    // Not written (a timeout, no leader...). DeadLetter moved the consumer back to the record, so the next
                    // Consume delivers it again: back off and carry on. A non-retriable one escapes: stop, fix, restart.
                    Console.Error.WriteLine($"dead letter failed, retrying: {d.Message}");
                    token.WaitHandle.WaitOne(TimeSpan.FromSeconds(1));
                }
            }
            catch (ConsumeException e) when (e.IsSchemaUnavailable())
            {
                // The schema registry could not be asked (a timeout, 5xx): the record is fine, so neither dead-letter it nor
                // commit past it. Go back to it, back off, read it again.
                consumer.Seek(e.ConsumerRecord.TopicPartitionOffset);
                token.WaitHandle.WaitOne(TimeSpan.FromSeconds(1));
            }
            catch (ConsumeException e) when (e.IsRecoverableConsumerError())
            {
                // Not a record: a broker or consumer error librdkafka passes on (a fetch that timed out). It retries from
                // the same offset by itself; nothing was skipped. Log, carry on.
                Console.Error.WriteLine($"consume error: {e.Error.Reason}");
            }
        }

        consumer.Close(); // commits the stored offsets
        #endregion
    }

    internal static void ManualCommit(IConsumer<string, OrderPlaced> consumer, ConsumeException e, IProducer<byte[], byte[]> deadLetterProducer)
    {
        #region manual-commit
        CopyResult result = consumer.DeadLetter(e, deadLetterProducer, "shop.orders.dlq", TimeSpan.FromSeconds(10), DeadLetterOffsetHandling.StoreAndCommit);
        if (result.Offset == OffsetOutcome.NotCommitted)
        {
            // e.g. RebalanceInProgress: the stored offset goes with the next commit, or the partition's next owner reads
            // the record again (at least once, never lost).
            Console.Error.WriteLine($"dead-lettered, not committed yet: {result.OffsetError}");
        }
        #endregion
    }

    internal static void Redrive()
    {
        #region redrive
        RedriveSummary summary = DeadLetterRedrive.Run(
            new ClientConfig { BootstrapServers = "localhost:9092" },
            new RedriveOptions { DeadLetterTopic = "orders.dlq", ErrorCode = "System.TimeoutException", RecordsPerSecond = 500 });
        Console.WriteLine(summary); // written 3, skipped by filter 1, skipped for loops 0, skipped without source 0, skipped unverified 0, failed 0
        #endregion
    }
}
