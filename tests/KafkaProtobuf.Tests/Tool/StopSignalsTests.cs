using System;
using System.IO;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;
using KafkaProtobuf.Tool.Commands;
using Xunit;

namespace KafkaProtobuf.Tests.Tool;

/// <summary>What the tool does with Ctrl+C, in process: no signal is sent (the process tests in <see cref="ToolStopTests"/> send real ones).</summary>
public sealed class StopSignalsTests
{
    private static readonly TimeSpan Deadline = TimeSpan.FromSeconds(60);

    [Fact]
    public async Task NoSignal_TheCommandsOwnExitCode()
    {
        using var signals = new StopSignals(TextWriter.Null, listen: false);

        int exitCode = await signals.RunAsync(_ => Task.FromResult(3), TimeSpan.FromSeconds(5)).WaitAsync(Deadline);

        Assert.Equal(3, exitCode);
        Assert.False(signals.Token.IsCancellationRequested);
    }

    [Fact]
    public async Task FirstSignal_CancelsTheCommand_AndKeepsTheProcess_AndACleanStopKeepsTheCommandsExitCode()
    {
        using var signals = new StopSignals(TextWriter.Null, listen: false);
        var context = new PosixSignalContext(PosixSignal.SIGINT);
        Task<int> run = signals.RunAsync(async token => { await Task.Delay(Timeout.Infinite, token).ContinueWith(_ => { }, TaskScheduler.Default); return 0; }, TimeSpan.FromMinutes(10));

        signals.OnSignal(context);

        Assert.True(context.Cancel); // the runtime does not end the process
        Assert.True(signals.Token.IsCancellationRequested);
        Assert.Equal(0, await run.WaitAsync(Deadline));
    }

    [Fact]
    public async Task ACommandThatDoesNotStop_IsLeftBehindWhenTheStopTimeoutRunsOut_With130()
    {
        var error = new StringWriter();
        using var signals = new StopSignals(TextWriter.Synchronized(error), listen: false);
        var never = new TaskCompletionSource<int>();
        Task<int> run = signals.RunAsync(_ => never.Task, TimeSpan.FromMilliseconds(50));

        signals.OnSignal(new PosixSignalContext(PosixSignal.SIGTERM));

        Assert.Equal(130, await run.WaitAsync(Deadline));
        Assert.Contains("did not stop within 0.05 s; quitting", error.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public void SecondSignal_IsLeftToTheRuntime_WhichEndsTheProcess()
    {
        using var signals = new StopSignals(TextWriter.Null, listen: false);
        var first = new PosixSignalContext(PosixSignal.SIGINT);
        var second = new PosixSignalContext(PosixSignal.SIGINT);

        signals.OnSignal(first);
        signals.OnSignal(second);

        Assert.True(first.Cancel);
        Assert.False(second.Cancel); // not cancelled: the signal's default action, the end of the process
    }
}
