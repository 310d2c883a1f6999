using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.IO.Pipes;
using System.Linq;
using System.Runtime.InteropServices;
using System.Threading.Tasks;

namespace KafkaProtobuf.Tests.Tool;

/// <summary>
/// The kafka-protobuf tool running as its own process, for tests that act while it runs: its standard error is
/// collected line by line (the tool's readiness lines go there), its standard output is left unread until it exits
/// (so a test can fill the pipe), and it can be sent signals. Every wait has a deadline; disposing kills it if needed.
/// </summary>
internal sealed class RunningTool : IDisposable
{
    private static readonly TimeSpan Deadline = TimeSpan.FromSeconds(60);

    private readonly Process _process;
    private readonly List<string> _errorLines = [];

    private RunningTool(Process process)
    {
        _process = process;
        _process.ErrorDataReceived += (_, e) =>
        {
            if (e.Data is not null)
            {
                lock (_errorLines)
                {
                    _errorLines.Add(e.Data);
                }
            }
        };
        _process.BeginErrorReadLine();
    }

    public int Id => _process.Id;

    public string Error
    {
        get
        {
            lock (_errorLines)
            {
                return string.Join('\n', _errorLines);
            }
        }
    }

    /// <summary>Starts the tool as <see cref="ToolProcess.StartInfo"/> does.</summary>
    public static RunningTool Start(params string[] args) =>
        new(Process.Start(ToolProcess.StartInfo(args)) ?? throw new InvalidOperationException("the tool did not start"));

    public void Signal(int signal) => Posix.Signal(_process.Id, signal);

    /// <summary>Waits for a line on standard error that contains <paramref name="text"/>.</summary>
    public async Task WaitForErrorLineAsync(string text)
    {
        DateTime deadline = DateTime.UtcNow + Deadline;
        while (!HasErrorLine(text))
        {
            if (DateTime.UtcNow > deadline || _process.HasExited)
            {
                await Task.Delay(100); // the last lines of an exited process
                if (HasErrorLine(text))
                {
                    return;
                }

                throw new TimeoutException($"no line with '{text}' on the tool's standard error (exited: {_process.HasExited}); it wrote:\n{Error}");
            }

            await Task.Delay(20);
        }
    }

    /// <summary>Waits until the tool is blocked writing to standard output: the pipe is full and nobody reads it.</summary>
    public async Task WaitUntilOutputIsBlockedAsync()
    {
        SafeHandle readEnd = OutputReadEnd();
        DateTime deadline = DateTime.UtcNow + Deadline;
        while (!Posix.IsPipeFull(readEnd))
        {
            if (DateTime.UtcNow > deadline || _process.HasExited)
            {
                throw new TimeoutException($"the tool's output pipe did not fill (exited: {_process.HasExited}); it wrote:\n{Error}");
            }

            await Task.Delay(20);
        }
    }

    private bool HasErrorLine(string text)
    {
        lock (_errorLines)
        {
            return _errorLines.Any(line => line.Contains(text, StringComparison.Ordinal));
        }
    }

    public int OutputPipeCapacity => Posix.PipeCapacity(OutputReadEnd());

    /// <summary>Waits for the tool to exit: its exit code (128 + the signal if a signal ended it).</summary>
    public async Task<int> WaitForExitAsync()
    {
        Task exited = _process.WaitForExitAsync();
        if (await Task.WhenAny(exited, Task.Delay(Deadline)) != exited)
        {
            throw new TimeoutException($"the tool did not exit within {Deadline.TotalSeconds} s; it wrote:\n{Error}");
        }

        await exited;
        return _process.ExitCode;
    }

    /// <summary>Everything the tool wrote to standard output; call once it has exited.</summary>
    public Task<string> ReadOutputAsync() => _process.StandardOutput.ReadToEndAsync();

    public void Dispose()
    {
        if (!_process.HasExited)
        {
            _process.Kill(entireProcessTree: true);
            _process.WaitForExit(Deadline);
        }

        _process.Dispose();
    }

    private SafeHandle OutputReadEnd() => _process.StandardOutput.BaseStream switch
    {
        PipeStream pipe => pipe.SafePipeHandle,
        FileStream file => file.SafeFileHandle,
        Stream other => throw new NotSupportedException("standard output is a " + other.GetType()),
    };
}
