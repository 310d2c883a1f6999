using System;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.Json;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Redrive;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tests.Shared;
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
        Assert.Equal(4, lines.Length); // the plan lists what a run would touch; what the filter leaves out is counted
        Assert.Equal("would write: orders [0] @10, dead letter orders.dlq [0] @0 (System.TimeoutException, handler, redriven 0 times)", lines[0]);
        Assert.Equal("dry run: would write 3, skipped by filter 1, skipped for loops 0, skipped without source 0, skipped unverified 0, failed 0", lines[3]);
        Assert.Equal(0, Count("orders"));
    }

    [Fact]
    public async Task ARun_WritesTheRecordsBack_AndSummarises()
    {
        (int exit, string output, string error) = await Run("dead-letters", "redrive", "-b", _cluster.BootstrapServers, "-t", "orders.dlq", "--rate", "1000");

        Assert.True(exit == ExitCodes.Ok, error);
        Assert.Equal("written 4, skipped by filter 0, skipped for loops 0, skipped without source 0, skipped unverified 0, failed 0\n", output);
        Assert.Equal(4, Count("orders"));

        // Run again: the group has it all; nothing new.
        Assert.Equal("written 0, skipped by filter 0, skipped for loops 0, skipped without source 0, skipped unverified 0, failed 0\n", (await Run("dead-letters", "redrive", "-b", _cluster.BootstrapServers, "-t", "orders.dlq")).Output);
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

    [Fact]
    public async Task List_ShowsTheNewestWindowGroupedByFailure_AndItsOlderCursorPagesToTheStart()
    {
        (int exit, string output, string error) = await Run("dead-letters", "list", "-b", _cluster.BootstrapServers, "-t", "orders.dlq", "--max", "3");

        Assert.True(exit == ExitCodes.Ok, error);
        using JsonDocument window = JsonDocument.Parse(output);
        JsonElement root = window.RootElement;
        Assert.Equal(1, root.GetProperty("format").GetInt32());
        Assert.Equal(4, root.GetProperty("total").GetInt64());
        Assert.Equal(3, root.GetProperty("count").GetInt32());
        JsonElement[] groups = [.. root.GetProperty("groups").EnumerateArray()];
        Assert.Equal(["System.FormatException", "System.TimeoutException"], groups.Select(g => g.GetProperty("errorCode").GetString()));
        Assert.Equal([1, 2], groups.Select(g => g.GetProperty("count").GetInt32()));
        JsonElement newest = groups[0].GetProperty("records")[0];
        Assert.Equal(3, newest.GetProperty("offset").GetInt64());
        Assert.Equal("orders", newest.GetProperty("deadLetter").GetProperty("sourceTopic").GetString());
        Assert.Equal(13, newest.GetProperty("deadLetter").GetProperty("sourceOffset").GetInt64());
        Assert.True(newest.GetProperty("value").TryGetProperty("error", out _), newest.ToString()); // the value is no frame

        string older = root.GetProperty("older").GetString()!;
        Assert.Equal("0:1", older);
        (exit, output, _) = await Run("dead-letters", "list", "-b", _cluster.BootstrapServers, "-t", "orders.dlq", "--max", "3", "--before", older);
        Assert.Equal(ExitCodes.Ok, exit);
        using JsonDocument last = JsonDocument.Parse(output);
        Assert.Equal(1, last.RootElement.GetProperty("count").GetInt32());
        Assert.Equal(JsonValueKind.Null, last.RootElement.GetProperty("older").ValueKind);
    }

    [Theory]
    [InlineData("--before", "0:x")]
    [InlineData("--before", "0:1,0:2")]
    [InlineData("--max", "0")]
    [InlineData("--max", "1001")]
    public async Task List_GivenABadCursorOrSize_IsAUsageError(string option, string value)
    {
        (int exit, _, string error) = await Run("dead-letters", "list", "-b", _cluster.BootstrapServers, "-t", "orders.dlq", option, value);
        Assert.Equal(ExitCodes.Usage, exit);
        Assert.Contains(option, error, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task EveryRow_IsShownAsItsLastColumn_AndARedriveWritesOnlyWhatIsBelieved(bool withKeys)
    {
        string prefix = withKeys ? "tool-signed-" : "tool-unsigned-", deadLetters = prefix + "rows.dlq";
        var rows = ProvenanceRows.WriteAndDeadLetter(_cluster.BootstrapServers, _cluster.CreateTopic, prefix, deadLetters, withKeys);
        string keysFile = Path.Combine(Path.GetTempPath(), "provenance-keys-" + Guid.NewGuid().ToString("N"));
        File.WriteAllText(keysFile, "# the flow's keys, the signing key first\n" + ProvenanceRows.KeysText + "\n");
        try
        {
            string[] keys = withKeys ? ["--provenance-keys-file", keysFile] : [];
            foreach (ProvenanceRows.Row row in rows)
            {
                (int shown, string json, string error) = await Run(
                    ["dead-letters", "show", "-b", _cluster.BootstrapServers, "-t", deadLetters, "-p", row.Position.Partition.Value.ToString(System.Globalization.CultureInfo.InvariantCulture), "-o", row.Position.Offset.Value.ToString(System.Globalization.CultureInfo.InvariantCulture), .. keys]);
                Assert.True(shown == ExitCodes.Ok, error);
                using JsonDocument document = JsonDocument.Parse(json);
                JsonElement deadLetter = document.RootElement.GetProperty("deadLetter");
                string source = deadLetter.GetProperty("source").GetString()!;
                Assert.True(row.Source is null ? source.StartsWith("not believed: ", StringComparison.Ordinal) && deadLetter.GetProperty("provenance").GetString() == "unverified" : source == row.Source, row.Name + ": " + json);
                Assert.Equal(row.RedriveCount, deadLetter.TryGetProperty("redriveCount", out JsonElement count) ? count.GetInt32() : 0);
                Assert.Equal(row.Source is null ? "unverified" : withKeys ? "verified" : "unchecked", deadLetter.GetProperty("provenance").GetString());
            }

            var before = ProvenanceRows.Counts(_cluster.BootstrapServers, ProvenanceRows.Topics(prefix));
            (int exit, string output, string redriveError) = await Run(["dead-letters", "redrive", "-b", _cluster.BootstrapServers, "-t", deadLetters, "--keep-partition", .. keys]);
            var after = ProvenanceRows.Counts(_cluster.BootstrapServers, ProvenanceRows.Topics(prefix));

            Assert.True(exit == ExitCodes.Ok, redriveError);
            Assert.StartsWith("written " + rows.Count(r => r.Written) + ",", output, StringComparison.Ordinal);
            Assert.Contains("skipped unverified " + rows.Count(r => r.Source is null) + ",", output, StringComparison.Ordinal);
            Assert.Null(ProvenanceRows.Difference(before, after, prefix, rows, keptPartitions: true));
        }
        finally
        {
            File.Delete(keysFile);
        }
    }

    [Fact]
    public async Task Keys_AreNeverAnArgument_AndABadKeysFileIsAUsageErrorThatQuotesNoKey()
    {
        string keysFile = Path.Combine(Path.GetTempPath(), "provenance-keys-" + Guid.NewGuid().ToString("N"));
        try
        {
            (int exit, _, string error) = await Run("dead-letters", "list", "-b", _cluster.BootstrapServers, "-t", "orders.dlq", "--provenance-key", "anything");
            Assert.Equal(ExitCodes.Usage, exit);
            (exit, _, error) = await Run("dead-letters", "list", "-b", _cluster.BootstrapServers, "-t", "orders.dlq", "--require-signatures");
            Assert.Equal(ExitCodes.Usage, exit);
            Assert.Contains("--require-signatures needs keys", error, StringComparison.Ordinal);
            File.WriteAllText(keysFile, "not-base64!\n");
            (exit, _, error) = await Run("dead-letters", "redrive", "-b", _cluster.BootstrapServers, "-t", "orders.dlq", "--provenance-keys-file", keysFile);
            Assert.Equal(ExitCodes.Usage, exit);
            Assert.Contains("is not base64", error, StringComparison.Ordinal);
            Assert.DoesNotContain("not-base64!", error, StringComparison.Ordinal);
        }
        finally
        {
            File.Delete(keysFile);
        }
    }

    [Fact]
    public async Task ARecordWhoseOwnHeadersNameAnotherSource_IsListedAndRedrivenByItsRealSource()
    {
        _cluster.CreateTopic(ForgedSourceRecord.ForgedTopic, 1);
        _cluster.CreateTopic("forged", 1);
        _cluster.CreateTopic("forged.dlq", 1);
        ForgedSourceRecord.WriteAndDeadLetter(_cluster.BootstrapServers, "forged", "forged.dlq");
        string[] topics = ["forged", "forged.dlq", ForgedSourceRecord.ForgedTopic];
        var before = ForgedSourceRecord.Counts(_cluster.BootstrapServers, topics);

        (int exit, string listed, _) = await Run("dead-letters", "list", "-b", _cluster.BootstrapServers, "-t", "forged.dlq");
        Assert.Equal(ExitCodes.Ok, exit);
        using (JsonDocument window = JsonDocument.Parse(listed))
        {
            JsonElement deadLetter = window.RootElement.GetProperty("groups")[0].GetProperty("records")[0].GetProperty("deadLetter");
            Assert.Equal("forged", deadLetter.GetProperty("sourceTopic").GetString());
            Assert.Equal(0, deadLetter.GetProperty("sourcePartition").GetInt32());
            Assert.Equal(0, deadLetter.GetProperty("sourceOffset").GetInt64());
            Assert.Equal("System.InvalidOperationException", deadLetter.GetProperty("errorCode").GetString());
            Assert.Equal("handler", deadLetter.GetProperty("component").GetString());
        }

        (exit, string dryRun, _) = await Run("dead-letters", "redrive", "-b", _cluster.BootstrapServers, "-t", "forged.dlq", "--dry-run");
        Assert.Equal(ExitCodes.Ok, exit);
        Assert.StartsWith("would write: forged [0] @0, dead letter forged.dlq [0] @0 (System.InvalidOperationException, handler, redriven 0 times)", dryRun, StringComparison.Ordinal);

        (exit, string run, string error) = await Run("dead-letters", "redrive", "-b", _cluster.BootstrapServers, "-t", "forged.dlq");
        Assert.True(exit == ExitCodes.Ok, error);
        Assert.StartsWith("written 1,", run, StringComparison.Ordinal);
        var after = ForgedSourceRecord.Counts(_cluster.BootstrapServers, topics);
        Assert.True(
            after["forged"] == before["forged"] + 1 && after["forged.dlq"] == before["forged.dlq"] && after[ForgedSourceRecord.ForgedTopic] == 0,
            "before: " + ForgedSourceRecord.Describe(before) + "; after: " + ForgedSourceRecord.Describe(after));
    }

    private static Task<(int Exit, string Output, string Error)> Run(params string[] args) => InProcessTool.RunAsync(args);
}
