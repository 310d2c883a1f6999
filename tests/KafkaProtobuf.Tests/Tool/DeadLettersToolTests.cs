using System;
using System.IO;
using System.Linq;
using System.Text;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Redrive;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tool.Commands;
using Xunit;

namespace KafkaProtobuf.Tests.Tool;

/// <summary><c>kafka-protobuf dead-letters redrive</c> on the embedded cluster: a dry run that lists and writes nothing, a filtered run, the summary, exit codes.</summary>
public sealed class DeadLettersToolTests : IDisposable
{
    private static readonly TimeSpan Deadline = TimeSpan.FromSeconds(60);
    private readonly EmbeddedKafkaCluster _cluster = EmbeddedKafkaCluster.Start(1);

    public DeadLettersToolTests()
    {
        _cluster.CreateTopic("orders", 1);
        _cluster.CreateTopic("orders.dlq", 1);
        using IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(_cluster.CreateProducerConfig()).Build();
        for (int i = 0; i < 4; i++)
        {
            var record = new ConsumeResult<byte[], byte[]>
            {
                TopicPartitionOffset = new TopicPartitionOffset("orders", 0, 10 + i),
                Message = new Message<byte[], byte[]> { Key = Encoding.UTF8.GetBytes("k" + i), Value = [1, 2, (byte)i], Headers = [] },
            };
            producer.Produce("orders.dlq", record.ToDeadLetterMessage(i < 3 ? new TimeoutException("slow") : new FormatException("bad")));
        }

        Assert.Equal(0, producer.Flush(Deadline));
    }

    public void Dispose() => _cluster.Dispose();

    private long Count(string topic)
    {
        using IConsumer<byte[], byte[]> consumer = new ConsumerBuilder<byte[], byte[]>(_cluster.CreateConsumerConfig()).Build();
        return consumer.QueryWatermarkOffsets(new TopicPartition(topic, 0), Deadline).High.Value;
    }

    [Fact]
    public async Task ADryRun_ListsWhatItWouldWrite_AndWritesNothing()
    {
        (int exit, string output, _) = await Run("dead-letters", "redrive", "-b", _cluster.BootstrapServers, "--topic", "orders.dlq", "--dry-run", "--error-code", "System.TimeoutException");

        Assert.Equal(ExitCodes.Ok, exit);
        string[] lines = output.TrimEnd('\n').Split('\n');
        Assert.Equal(5, lines.Length);
        Assert.StartsWith("would write orders[0]@10 from orders.dlq[0]@0 (System.TimeoutException, handler, redriven 0 times)", lines[0], StringComparison.Ordinal);
        Assert.StartsWith("skip (filter) orders[0]@13", lines[3], StringComparison.Ordinal);
        Assert.Equal("dry run: would write 3, skipped by filter 1, skipped for loops 0, skipped without source 0, failed 0", lines[4]);
        Assert.Equal(0, Count("orders"));
    }

    [Fact]
    public async Task ARun_WritesTheRecordsBack_AndSummarises()
    {
        (int exit, string output, string error) = await Run("dead-letters", "redrive", "-b", _cluster.BootstrapServers, "-t", "orders.dlq", "--rate", "1000");

        Assert.True(exit == ExitCodes.Ok, error);
        Assert.Equal("written 4, skipped by filter 0, skipped for loops 0, skipped without source 0, failed 0\n", output);
        Assert.Equal(4, Count("orders"));

        // Run again: the group has it all; nothing new.
        Assert.Equal("written 0, skipped by filter 0, skipped for loops 0, skipped without source 0, failed 0\n", (await Run("dead-letters", "redrive", "-b", _cluster.BootstrapServers, "-t", "orders.dlq")).Output);
    }

    [Fact]
    public async Task BadOptions_AreUsageErrors_AndAMissingTopicIsExit3()
    {
        Assert.Equal(ExitCodes.Usage, (await Run("dead-letters", "redrive", "-b", _cluster.BootstrapServers, "-t", "orders.dlq", "--component", "payload")).Exit);
        Assert.Equal(ExitCodes.Usage, (await Run("dead-letters", "redrive", "-b", _cluster.BootstrapServers, "-t", "orders.dlq", "--rate", "0")).Exit);
        (int exit, _, string error) = await Run("dead-letters", "redrive", "-b", _cluster.BootstrapServers, "-t", "missing.dlq");
        Assert.Equal(ExitCodes.ConnectionFailure, exit);
        Assert.Contains("missing.dlq", error, StringComparison.Ordinal);
    }

    private static Task<(int Exit, string Output, string Error)> Run(params string[] args) => InProcessTool.RunAsync(args);
}
