using System;
using System.Linq;
using System.Runtime.InteropServices;
using System.Text;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Testing;
using Xunit;

namespace KafkaProtobuf.Tests.Tool;

/// <summary>
/// Ctrl+C (SIGINT) and SIGTERM on <c>kafka-protobuf consume</c>, sent to the tool's process once it says it is where
/// the test wants it (a line on standard error, a request at the registry, a full output pipe), never after a guessed
/// delay: it stops cleanly while it waits for records or for the registry; when it cannot (its output is blocked) it
/// quits after <c>--stop-timeout</c>; a second Ctrl+C ends it at once.
/// </summary>
public sealed class ToolStopTests : IDisposable
{
    private readonly EmbeddedKafkaCluster _cluster = EmbeddedKafkaCluster.Start(1);
    private readonly InProcessSchemaRegistry _registry = InProcessSchemaRegistry.Start();

    public void Dispose()
    {
        _registry.Dispose();
        _cluster.Dispose();
    }

    [SkippableTheory]
    [InlineData(Posix.SIGINT)]
    [InlineData(Posix.SIGTERM)]
    public async Task Consume_SignalledWhileWaitingForRecords_StopsCleanly_WithoutJoiningAGroupOrCommitting(int signal)
    {
        Skip.IfNot(OperatingSystem.IsLinux(), "signals are sent with kill(2), and /proc tells whether SIGINT is ignored");
        OrderTopic.Produce(_cluster, _registry, "orders");

        using var tool = RunningTool.Start("consume", "-b", _cluster.BootstrapServers, "-t", "orders", "--from-beginning", "--schema-registry", _registry.Url);
        await tool.WaitForErrorLineAsync("reached the end of orders [0] at offset 7"); // every record shown; now it waits for more
        tool.Signal(signal);
        int exitCode = await tool.WaitForExitAsync();

        Assert.True(exitCode == 0, $"exit {exitCode}: {tool.Error}");
        Assert.Equal(7, (await tool.ReadOutputAsync()).Split('\n', StringSplitOptions.RemoveEmptyEntries).Length);
        Assert.Contains("stopping", tool.Error, StringComparison.Ordinal);
        Assert.DoesNotContain("did not stop", tool.Error, StringComparison.Ordinal);
        Assert.Equal(0, _cluster.RequestCount(KafkaApi.JoinGroup));
        Assert.Equal(0, _cluster.RequestCount(KafkaApi.OffsetCommit));
    }

    [SkippableFact]
    public async Task Consume_CtrlCWhileTheRegistryHasNotAnswered_CancelsTheRequest_AndStopsCleanly()
    {
        Skip.IfNot(OperatingSystem.IsLinux(), "signals are sent with kill(2), and /proc tells whether SIGINT is ignored");
        OrderTopic.Produce(_cluster, _registry, "orders");
        _registry.ResetRequestCounts();
        _registry.AddedLatency = TimeSpan.FromMinutes(10); // the tool's first schema request hangs

        using var tool = RunningTool.Start("consume", "-b", _cluster.BootstrapServers, "-t", "orders", "--from-beginning", "--schema-registry", _registry.Url, "--stop-timeout", "600");
        await WaitForAsync(() => _registry.TotalRequestCount > 0, "the tool's first request at the registry");
        tool.Signal(Posix.SIGINT);
        int exitCode = await tool.WaitForExitAsync();

        // 0, not 130: the request was cancelled and the consumer closed, rather than the stop timeout running out.
        Assert.True(exitCode == 0, $"exit {exitCode}: {tool.Error}");
        Assert.Empty(await tool.ReadOutputAsync()); // the record whose schema never came is not shown half-decoded
    }

    [SkippableFact]
    public async Task Consume_CtrlCWhileItsOutputIsBlocked_QuitsWhenTheStopTimeoutRunsOut()
    {
        Skip.IfNot(OperatingSystem.IsLinux(), "signals are sent with kill(2), and pipes are inspected with ioctl(2)");
        using RunningTool tool = StartBlockedOnOutput("1");
        await tool.WaitUntilOutputIsBlockedAsync();

        tool.Signal(Posix.SIGINT);
        int exitCode = await tool.WaitForExitAsync();

        Assert.True(exitCode == 130, $"exit {exitCode}: {tool.Error}");
        Assert.Contains("did not stop within 1 s; quitting", tool.Error, StringComparison.Ordinal);
    }

    [SkippableFact]
    public async Task Consume_ASecondCtrlC_EndsItAtOnce_WhileTheFirstWaitsForItsBlockedOutput()
    {
        Skip.IfNot(OperatingSystem.IsLinux(), "signals are sent with kill(2), and pipes are inspected with ioctl(2)");
        using RunningTool tool = StartBlockedOnOutput("3600");
        await tool.WaitUntilOutputIsBlockedAsync();

        tool.Signal(Posix.SIGINT);
        await tool.WaitForErrorLineAsync("stopping (press Ctrl+C again to quit at once)");
        tool.Signal(Posix.SIGINT);
        int exitCode = await tool.WaitForExitAsync(); // the stop timeout is an hour: only the second signal can end it in time

        Assert.True(exitCode == 128 + Posix.SIGINT, $"exit {exitCode}: {tool.Error}");
        Assert.DoesNotContain("did not stop", tool.Error, StringComparison.Ordinal);
    }

    /// <summary>
    /// The tool reading a record whose output line is larger than the pipe to the test, which never reads it: the tool
    /// is then blocked in the middle of writing that line for as long as the test wants.
    /// </summary>
    private RunningTool StartBlockedOnOutput(string stopTimeout)
    {
        const int size = 400_000; // shown as base64 (not framing): larger still
        OrderTopic.ProduceRaw(_cluster, "big", new Message<byte[], byte[]> { Value = Encoding.ASCII.GetBytes(new string('x', size)) });
        RunningTool tool = RunningTool.Start("consume", "-b", _cluster.BootstrapServers, "-t", "big", "--from-beginning", "--stop-timeout", stopTimeout);
        if (tool.OutputPipeCapacity >= size)
        {
            tool.Dispose();
            Assert.Fail($"the output pipe holds {size} bytes or more: the record would not block it");
        }

        return tool;
    }

    private static async Task WaitForAsync(Func<bool> condition, string what)
    {
        DateTime deadline = DateTime.UtcNow + TimeSpan.FromSeconds(60);
        while (!condition())
        {
            if (DateTime.UtcNow > deadline)
            {
                throw new TimeoutException("waited in vain for " + what);
            }

            await Task.Delay(20);
        }
    }
}
