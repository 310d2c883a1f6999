using System;
using System.Collections.Concurrent;
using System.Text;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Hosting.Conclusion;
using KafkaProtobuf.Hosting.Consuming;
using KafkaProtobuf.Hosting.Diagnostics;
using KafkaProtobuf.Hosting.Handling;
using KafkaProtobuf.Hosting.Health;
using KafkaProtobuf.Hosting.Scheduling;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tests.Support;
using Microsoft.Extensions.Logging;
using Xunit;

namespace KafkaProtobuf.Tests.Hosting;

/// <summary>
/// The conclusion on its own, over a real Kafka client on the embedded cluster: the edges the hosted consumer's loops
/// cannot reach on demand.
/// </summary>
public sealed class RecordConclusionTests : IDisposable
{
    private static readonly TimeSpan Deadline = TimeSpan.FromSeconds(60);

    private readonly EmbeddedKafkaCluster _cluster = EmbeddedKafkaCluster.Start(1);

    public void Dispose() => _cluster.Dispose();

    [Fact]
    public void ADeadLetterWritten_WhoseOffsetCouldNotBeStored_IsReportedAsNotStored_NotAsDeadLettered()
    {
        _cluster.CreateTopic("orders", 1);
        _cluster.CreateTopic("orders.dlq", 1);
        var lines = new ConcurrentQueue<(EventId Id, string Line)>();
        var log = new CapturedLog((_, id, line) => lines.Enqueue((id, line)));
        var owner = new ListeningOwner(subscribed: false);
        var status = new ConsumerStatus("conclusion");
        var diagnostics = new ConsumerDiagnostics("conclusion", "conclusion");
        using var client = new ConsumerClient<string, string>(
            "conclusion", _cluster.CreateConsumerConfig("conclusion"), Deserializers.Utf8, Deserializers.Utf8, owner, status, log, diagnostics, TimeSpan.FromMilliseconds(50));
        using IProducer<byte[], byte[]> writer = new ProducerBuilder<byte[], byte[]>(_cluster.CreateProducerConfig()).Build();
        var conclusion = new RecordConclusion<string, string>(
            client, writer, "orders.dlq", TimeSpan.FromSeconds(10), TimeSpan.FromSeconds(5), TimeSpan.FromMilliseconds(50), null, ProvenanceCodec.WithoutKeys, status,
            new ConclusionEvents("conclusion", log, diagnostics), new ConsumerTracing("conclusion", "conclusion"));
        var record = new ConsumeResult<string, string>
        {
            TopicPartitionOffset = new TopicPartitionOffset("orders", 0, 5),
            Message = new Message<string, string> { Key = "k", Value = "v", Headers = [] },
        };

        status.HandlerFailed(1, new System.InvalidOperationException("failed once")); // what a record done would reset

        // The client never subscribed: orders [0] is not this consumer's, as after a rebalance took it away.
        AfterConclusion after = conclusion.Conclude(
            record, new HandlerResult(HandlerOutcome.DeadLetter, new InvalidOperationException("the handler gave up")), null, (Encoding.UTF8.GetBytes("k"), Encoding.UTF8.GetBytes("v")));

        Assert.True(after.IsContinue, after.ToString());
        Assert.Equal(1, status.FailedAttempts); // not counted as done here: its new owner concludes it
        Assert.Contains(lines, l => l.Line.Contains("orders [0] @5", StringComparison.Ordinal) && l.Line.Contains("its offset was not stored", StringComparison.Ordinal));
        Assert.DoesNotContain(lines, l => l.Line.Contains("dead-lettered to", StringComparison.Ordinal));
        Assert.Equal("v", ReadOne("orders.dlq")); // written all the same: its new owner reads the record, and writes it, again
    }

    [Fact]
    public void AHandledRecord_IsConcluded_AllocatingNoMoreThanStoringItsOffset()
    {
        _cluster.CreateTopic("orders", 1);
        using (IProducer<string, string> producer = new ProducerBuilder<string, string>(_cluster.CreateProducerConfig()).Build())
        {
            producer.Produce("orders", new Message<string, string> { Key = "k", Value = "v" });
            Assert.Equal(0, producer.Flush(Deadline));
        }

        var log = new CapturedLog((_, _, _) => { });
        var owner = new ListeningOwner(subscribed: true);
        var status = new ConsumerStatus("conclusion");
        var diagnostics = new ConsumerDiagnostics("conclusion", "conclusion");
        using var client = new ConsumerClient<string, string>(
            "conclusion", _cluster.CreateConsumerConfig("conclusion"), Deserializers.Utf8, Deserializers.Utf8, owner, status, log, diagnostics, TimeSpan.FromMilliseconds(50));
        var conclusion = new RecordConclusion<string, string>(
            client, null, null, TimeSpan.FromSeconds(10), TimeSpan.FromSeconds(5), TimeSpan.FromMilliseconds(50), null, ProvenanceCodec.WithoutKeys, status,
            new ConclusionEvents("conclusion", log, diagnostics), new ConsumerTracing("conclusion", "conclusion"));
        client.Subscribe(["orders"]);
        ConsumeResult<string, string>? record = null;
        Wait.Until(
            () => client.Consume(TimeSpan.FromMilliseconds(100), default, out record, out _) == Consumed.Record,
            "the record, from an assigned partition (an offset is stored only there)",
            Deadline);
        var handled = new HandlerResult(HandlerOutcome.Handled, null);

        const int calls = 1000;
        long storing = AllocationCounter.Least(() => client.StoreOffset(record!), warmUps: 50, callsPerAttempt: calls);
        long concluding = AllocationCounter.Least(() => conclusion.Conclude(record!, handled, null, null), warmUps: 50, callsPerAttempt: calls);

        // Confluent's StoreOffset allocates (as in the hand-written loop), about 1 KB a call and not exactly the same
        // each time (a few hundred bytes over a thousand calls, either way, seen on a loaded CI machine); the conclusion
        // around it must add nothing: one object a call (24 bytes at least) would add 24,000 bytes to the thousand.
        Assert.True(concluding - storing < calls * 12, $"concluding allocated {concluding} bytes in {calls} calls, storing alone {storing}");
        AfterConclusion after = conclusion.Conclude(record!, handled, null, null);
        Assert.True(after.IsContinue, after.ToString());
    }

    private string ReadOne(string topic)
    {
        using IConsumer<string, string> reader = new ConsumerBuilder<string, string>(_cluster.CreateConsumerConfig("reader-" + Guid.NewGuid().ToString("N"))).Build();
        reader.Assign(new TopicPartitionOffset(topic, 0, Offset.Beginning));
        ConsumeResult<string, string>? read = null;
        Wait.Until(() => (read = reader.Consume(TimeSpan.FromMilliseconds(100))) is not null, "the dead letter in " + topic, Deadline);
        return read!.Message.Value;
    }

    /// <summary>
    /// A consumer service that only hears. Not subscribed, nothing can be revoked (a revocation fails the test);
    /// subscribed, partitions come and go with the group.
    /// </summary>
    private sealed class ListeningOwner(bool subscribed) : IConsumerOwner
    {
        public ConsumerFailure? Revoked(System.Collections.Generic.IReadOnlyList<TopicPartition> partitions) =>
            subscribed ? null : throw new InvalidOperationException("not subscribed: nothing to revoke");
    }
}
