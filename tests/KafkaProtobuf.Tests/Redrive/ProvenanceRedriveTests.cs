using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Redrive;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tests.Shared;
using Xunit;

namespace KafkaProtobuf.Tests.Redrive;

/// <summary>
/// Issue 67's table through the library's own front-end, on the embedded cluster: the dead letters of records whose own
/// headers forge a source, a tier or a redrive count, read by a <see cref="DeadLetterTopicReader"/> and redriven (a run
/// and a plan), with and without keys, proven by the record counts of every topic and partition before and after.
/// </summary>
public sealed class ProvenanceRedriveTests : IDisposable
{
    private static readonly TimeSpan Deadline = TimeSpan.FromSeconds(60);
    private readonly EmbeddedKafkaCluster _cluster = EmbeddedKafkaCluster.Start(1);

    public void Dispose() => _cluster.Dispose();

    private ClientConfig Kafka => new() { BootstrapServers = _cluster.BootstrapServers };

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task EveryRow_ReadsAsItsLastColumn_AndARedriveWritesOnlyWhatIsBelieved_ToItsBelievedPartition(bool withKeys)
    {
        string prefix = withKeys ? "signed-" : "unsigned-", deadLetters = prefix + "rows.dlq";
        IReadOnlyList<ProvenanceRows.Row> rows = ProvenanceRows.WriteAndDeadLetter(_cluster.BootstrapServers, _cluster.CreateTopic, prefix, deadLetters, withKeys);
        ProvenanceKeys? keys = withKeys ? ProvenanceRows.Keys : null;

        using (var reader = new DeadLetterTopicReader(Kafka, keys))
        {
            foreach (ProvenanceRows.Row row in rows)
            {
                DeadLetter letter = (await reader.ReadAsync(deadLetters, row.Position.Partition.Value, row.Position.Offset.Value, CancellationToken.None).WaitAsync(Deadline))!;
                Assert.True(
                    row.Source is null ? letter.Provenance == ProvenanceStatus.Unverified && letter.DescribeSource().StartsWith("not believed: ", StringComparison.Ordinal) : letter.DescribeSource() == row.Source,
                    row.Name + ": " + letter.Provenance + ", " + letter.DescribeSource());
                Assert.Equal(row.RedriveCount, letter.RedriveCount);
            }
        }

        var topics = ProvenanceRows.Topics(prefix);
        Dictionary<string, long> before = ProvenanceRows.Counts(_cluster.BootstrapServers, topics);
        RedriveSummary summary = DeadLetterRedrive.Run(Kafka, new RedriveOptions { DeadLetterTopic = deadLetters, ProvenanceKeys = keys, KeepSourcePartition = true });
        Dictionary<string, long> after = ProvenanceRows.Counts(_cluster.BootstrapServers, topics);

        Assert.Equal(rows.Count(r => r.Written), summary.Written);
        Assert.Equal(rows.Count(r => r.Source is null), summary.SkippedUnverified);
        Assert.Equal(withKeys ? 0 : 1, summary.SkippedForLoops); // row 4's forged count, believed without keys
        Assert.Null(ProvenanceRows.Difference(before, after, prefix, rows, keptPartitions: true));
    }

    [Fact]
    public async Task APlanOfTheSignedRows_ListsTheUnverifiedAsSkipped_AndItsRunWritesTheBelievedOnly()
    {
        const string prefix = "plan-", deadLetters = "plan-rows.dlq";
        IReadOnlyList<ProvenanceRows.Row> rows = ProvenanceRows.WriteAndDeadLetter(_cluster.BootstrapServers, _cluster.CreateTopic, prefix, deadLetters, signed: true);
        var plans = new RedrivePlans();

        RedrivePlan plan = await plans.PlanAsync(Kafka, new RedriveOptions { DeadLetterTopic = deadLetters, ProvenanceKeys = ProvenanceRows.Keys }).WaitAsync(Deadline);

        Assert.Equal(3, plan.DryRun.SkippedUnverified);
        Assert.All(plan.DeadLetters.Where(e => e.Outcome == RedriveOutcome.SkippedUnverified), e => Assert.StartsWith("not believed: ", e.DescribeSource(), StringComparison.Ordinal));
        Assert.Equal(
            rows.Select(r => (r.Position.Offset.Value, r.Source ?? "not believed")).OrderBy(r => r.Value),
            plan.DeadLetters.Select(e => (e.Position.Offset.Value, e.SourceTopic is null ? "not believed" : e.DescribeSource())).OrderBy(e => e.Item1));
        Assert.Same(plan, plans.Latest(deadLetters));

        Dictionary<string, long> before = ProvenanceRows.Counts(_cluster.BootstrapServers, ProvenanceRows.Topics(prefix));
        RedriveSummary run = await plan.RunAsync(CancellationToken.None).WaitAsync(Deadline);
        Dictionary<string, long> after = ProvenanceRows.Counts(_cluster.BootstrapServers, ProvenanceRows.Topics(prefix));
        Assert.Equal(3, run.Written);
        Assert.Equal(3, plan.Skipped);
        Assert.Null(ProvenanceRows.Difference(before, after, prefix, rows, keptPartitions: false));
        Assert.Equal(RedriveRefusal.Completed, plan.Refusal);
        Assert.Null(plans.Find("no such plan"));
    }
}
