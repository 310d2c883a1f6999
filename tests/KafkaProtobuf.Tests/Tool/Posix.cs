using System;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;

namespace KafkaProtobuf.Tests.Tool;

/// <summary>The few Linux calls the tool's stop tests need: send a signal, see whether one is ignored, see whether a pipe is full.</summary>
internal static class Posix
{
    public const int SIGINT = 2;
    public const int SIGTERM = 15;

    private const uint FIONREAD = 0x541B;
    private const int F_GETPIPE_SZ = 1032;

    /// <summary>Sends a signal to a process, as <c>kill(1)</c> or a terminal's Ctrl+C (SIGINT) would.</summary>
    public static void Signal(int pid, int signal)
    {
        if (kill(pid, signal) != 0)
        {
            throw new InvalidOperationException($"kill({pid}, {signal}) failed: errno {Marshal.GetLastPInvokeError()}");
        }
    }

    /// <summary>
    /// Whether this process ignores a signal, and so every process it starts would too: a CI run started as a
    /// background job of a non-interactive shell ignores SIGINT, and a child cannot undo that by itself.
    /// </summary>
    public static bool IsIgnoredHere(int signal)
    {
        string mask = File.ReadLines("/proc/self/status").Single(l => l.StartsWith("SigIgn:", StringComparison.Ordinal))["SigIgn:".Length..].Trim();
        return (ulong.Parse(mask, NumberStyles.HexNumber, CultureInfo.InvariantCulture) & (1UL << (signal - 1))) != 0;
    }

    /// <summary>Whether the pipe whose read end is <paramref name="readEnd"/> holds as many bytes as it can: its writer then blocks.</summary>
    public static bool IsPipeFull(SafeHandle readEnd)
    {
        int fd = (int)readEnd.DangerousGetHandle();
        int capacity = fcntl(fd, F_GETPIPE_SZ);
        if (capacity <= 0 || ioctl(fd, FIONREAD, out int buffered) != 0)
        {
            throw new InvalidOperationException($"cannot read the state of pipe {fd}: errno {Marshal.GetLastPInvokeError()}");
        }

        return buffered >= capacity;
    }

    /// <summary>The capacity of a pipe, in bytes (64 KiB unless changed).</summary>
    public static int PipeCapacity(SafeHandle readEnd) => fcntl((int)readEnd.DangerousGetHandle(), F_GETPIPE_SZ);

    [DllImport("libc", SetLastError = true)]
    private static extern int kill(int pid, int sig);

    [DllImport("libc", SetLastError = true)]
    private static extern int fcntl(int fd, int cmd);

    [DllImport("libc", SetLastError = true)]
    private static extern int ioctl(int fd, nuint request, out int value);
}
