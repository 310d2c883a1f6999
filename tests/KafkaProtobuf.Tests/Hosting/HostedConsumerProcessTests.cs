using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Linq;
using System.Reflection;
using System.Text;
using Confluent.Kafka;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tests.Shared;
using KafkaProtobuf.Tests.Support;
using Xunit;

namespace KafkaProtobuf.Tests.Hosting;

/// <summary>
/// What a service's process tells its orchestrator (systemd's Restart=on-failure, Docker's on-failure, a Kubernetes
/// Job): a service written as the docs show it (<c>builder.Build().Run()</c>) exits non-zero when its consumer fails,
/// and zero when it stops cleanly; and what a process killed mid-stream leaves its group. The service runs as a process
/// of its own against the test's embedded cluster; each run ends by itself (the wait for it has a deadline, and a
/// process still running then is killed).
/// </summary>
public sealed class HostedConsumerProcessTests : IDisposable
{
    private static readonly TimeSpan Deadline = TimeSpan.FromSeconds(90);

    private static readonly string Service = typeof(HostedConsumerProcessTests).Assembly.GetCustomAttributes<AssemblyMetadataAttribute>()
        .Single(a => a.Key == "ConsumerProcess").Value!;

    private readonly EmbeddedKafkaCluster _cluster = EmbeddedKafkaCluster.Start(1);

    public HostedConsumerProcessTests() => _cluster.SetGroupInitialRebalanceDelay(TimeSpan.Zero);

    public void Dispose() => _cluster.Dispose();

    [Fact]
    public void AConsumerThatFails_MakesTheProcessExitNonZero()
    {
        Produce("failing", Encoding.UTF8.GetBytes("first"), [0xFF, 0xFE, 0xFD]); // the second cannot be deserialized, and there is no dead-letter topic

        (int exitCode, string output) = Run("failing");

        Assert.Equal(1, exitCode);
        Assert.Contains("handled first", output, StringComparison.Ordinal);
        Assert.Contains("stopped on a failure: failing [0] @1 cannot be deserialized and there is no dead-letter topic", output, StringComparison.Ordinal);
    }

    [Fact]
    public void AServiceThatStopsCleanly_ExitsZero()
    {
        Produce("clean", Encoding.UTF8.GetBytes("first"), Encoding.UTF8.GetBytes("stop"));

        (int exitCode, string output) = Run("clean");

        Assert.Contains("handled stop", output, StringComparison.Ordinal);
        Assert.Equal(0, exitCode);
    }

    [Fact]
    public void AProcessKilledMidStream_LosesNothing_TheNextReadsOnFromTheGroupsLastCommit()
    {
        const int Records = 200;
        byte[][] values = [.. Enumerable.Range(0, Records).Select(n => Encoding.UTF8.GetBytes(n.ToString(CultureInfo.InvariantCulture))), Encoding.UTF8.GetBytes("stop")];
        Produce("killed", values);
        string group = "group-" + Guid.NewGuid().ToString("N");

        // The first process handles a record every 20 ms, and is killed (SIGKILL: no commit, no LeaveGroup) once it has
        // handled 60: what it handled since its last auto-commit is not committed.
        var first = new ConcurrentQueue<string>();
        using (Process killed = Start("killed", group, first))
        {
            Wait.Until(() => first.Contains("handled 60"), () => "the first process to handle 60 records (it printed: " + string.Join(" | ", first.TakeLast(5)) + ")", Deadline);
            killed.Kill(entireProcessTree: true);
            Assert.True(killed.WaitForExit(Deadline), "the killed process did not end");
        }

        long committed = CommittedOffset("killed", group);
        (int exitCode, string output) = Run("killed", group, "0", "3000");
        List<int> firstHandled = Handled(first);
        List<int> secondHandled = Handled(output.Split('\n'));

        Assert.Equal(0, exitCode);
        Assert.Contains("handled stop", output, StringComparison.Ordinal);
        Assert.True(committed > 0, "the first process committed nothing before it was killed"); // commits every 100 ms
        Assert.Equal(Enumerable.Range((int)committed, Records - (int)committed), secondHandled); // from the commit on, each once, in order
        Assert.Equal(Enumerable.Range(0, firstHandled.Count), firstHandled);
        Assert.True(firstHandled.Count >= committed, $"the group committed {committed} but the first process handled only {firstHandled.Count}");
    }

    private static List<int> Handled(IEnumerable<string> lines) =>
        [.. lines.Select(l => l.Trim()).Where(l => l.StartsWith("handled ", StringComparison.Ordinal) && l != "handled stop")
            .Select(l => int.Parse(l["handled ".Length..], CultureInfo.InvariantCulture))];

    /// <summary>A service process that handles a record every 20 ms, its printed lines into <paramref name="lines"/> as they come.</summary>
    private Process Start(string topic, string group, ConcurrentQueue<string> lines)
    {
        var start = new ProcessStartInfo("dotnet", "exec \"" + Service + "\" " + _cluster.BootstrapServers + " " + topic + " " + group + " 20 3000")
        {
            WorkingDirectory = AppContext.BaseDirectory,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        var process = new Process { StartInfo = start };
        process.OutputDataReceived += (_, e) => lines.Enqueue(e.Data ?? string.Empty);
        process.ErrorDataReceived += (_, e) => lines.Enqueue(e.Data ?? string.Empty);
        process.Start();
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        return process;
    }

    private long CommittedOffset(string topic, string group)
    {
        using IConsumer<Ignore, Ignore> reader = new ConsumerBuilder<Ignore, Ignore>(_cluster.CreateConsumerConfig(group)).Build();
        long offset = reader.Committed([new TopicPartition(topic, 0)], Deadline).Single().Offset.Value;
        return offset < 0 ? 0 : offset;
    }

    private void Produce(string topic, params byte[][] values)
    {
        _cluster.CreateTopic(topic, 1);
        using IProducer<Null, byte[]> producer = new ProducerBuilder<Null, byte[]>(_cluster.CreateProducerConfig()).Build();
        foreach (byte[] value in values)
        {
            producer.Produce(topic, new Message<Null, byte[]> { Value = value });
        }

        Assert.Equal(0, producer.Flush(Deadline));
    }

    private (int ExitCode, string Output) Run(string topic) => Run(topic, "group-" + Guid.NewGuid().ToString("N"));

    private (int ExitCode, string Output) Run(string topic, string group, params string[] more) =>
        DotNet.Run("dotnet", "exec \"" + Service + "\" " + _cluster.BootstrapServers + " " + topic + " " + group + " " + string.Join(" ", more), AppContext.BaseDirectory, Deadline);
}
