using System;
using System.Globalization;
using System.IO;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;

namespace KafkaProtobuf.Tool.Commands;

/// <summary>
/// Ctrl+C (SIGINT) and SIGTERM: the first asks the running command to stop (its token is cancelled) and gives it a
/// bounded time to finish; a second ends the process at once, by the signal's default action.
/// </summary>
/// <remarks>
/// Why not System.CommandLine's own handling: it waits two seconds and then returns 130 whether or not the command
/// could have stopped cleanly, and a second signal after that throws on the signal thread. As every program on Unix,
/// the tool cannot see a signal its parent started it with ignored (a background job of a non-interactive shell,
/// <c>nohup</c>): the runtime keeps such signals ignored.
/// </remarks>
internal sealed class StopSignals : IDisposable
{
    private readonly CancellationTokenSource _stop = new();
    private readonly TaskCompletionSource _firstSignal = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly TextWriter _error;
    private readonly PosixSignalRegistration? _interrupt;
    private readonly PosixSignalRegistration? _terminate;
    private int _signals;

    /// <param name="error">Where to say that it is stopping.</param>
    /// <param name="listen">Whether to take SIGINT and SIGTERM (tests call <see cref="OnSignal"/> instead).</param>
    public StopSignals(TextWriter error, bool listen = true)
    {
        _error = error;
        if (listen && !OperatingSystem.IsAndroid() && !OperatingSystem.IsIOS() && !OperatingSystem.IsTvOS() && !OperatingSystem.IsBrowser())
        {
            _interrupt = PosixSignalRegistration.Create(PosixSignal.SIGINT, OnSignal);
            _terminate = PosixSignalRegistration.Create(PosixSignal.SIGTERM, OnSignal);
        }
    }

    /// <summary>Cancelled by the first signal.</summary>
    public CancellationToken Token => _stop.Token;

    /// <summary>
    /// Runs a command to its end and returns its exit code; once a signal asked it to stop, waits at most
    /// <paramref name="stopTimeout"/> for it, then returns <see cref="ExitCodes.Interrupted"/> without it (whatever it
    /// is blocked on, a broker, the registry or a full output pipe, ends with the process).
    /// </summary>
    public async Task<int> RunAsync(Func<CancellationToken, Task<int>> command, TimeSpan stopTimeout)
    {
        // On the thread pool, so that a command blocked without ever yielding (in a write to a full pipe) cannot keep
        // this method from counting down its stop timeout.
        Task<int> run = Task.Run(() => command(Token));
        if (await Task.WhenAny(run, _firstSignal.Task).ConfigureAwait(false) == run)
        {
            return await run.ConfigureAwait(false);
        }

        using var timeout = new CancellationTokenSource();
        Task deadline = Task.Delay(stopTimeout, timeout.Token);
        if (await Task.WhenAny(run, deadline).ConfigureAwait(false) == run)
        {
            await timeout.CancelAsync().ConfigureAwait(false);
            return await run.ConfigureAwait(false);
        }

        await Say(string.Create(CultureInfo.InvariantCulture, $"kafka-protobuf: did not stop within {stopTimeout.TotalSeconds:0.###} s; quitting")).ConfigureAwait(false);
        return ExitCodes.Interrupted;
    }

    /// <summary>What a signal does; its own method so that tests can call it without sending one.</summary>
    internal void OnSignal(PosixSignalContext context)
    {
        if (Interlocked.Increment(ref _signals) > 1)
        {
            // Not cancelled: the runtime restores the signal's default action and raises it again, ending the process.
            context.Cancel = false;
            return;
        }

        context.Cancel = true;
        _stop.Cancel();
        _firstSignal.TrySetResult();
        _ = Say("kafka-protobuf: stopping (press Ctrl+C again to quit at once)");
    }

    /// <summary>A line on standard error that nothing waits for long: a blocked standard error must not keep the tool from stopping.</summary>
    private async Task Say(string line)
    {
        Task write = Task.Run(() => _error.WriteLine(line));
        await Task.WhenAny(write, Task.Delay(TimeSpan.FromSeconds(1))).ConfigureAwait(false);
    }

    public void Dispose()
    {
        _interrupt?.Dispose();
        _terminate?.Dispose();
        _stop.Dispose();
    }
}
