using System;
using System.Diagnostics;
using System.Globalization;
using System.IO;

namespace KafkaProtobuf.Benchmarks.Tools;

/// <summary>
/// Lets a <c>perf</c> profile keep only the measured windows: with <c>KAFKAPROTOBUF_PROFILE_WINDOWS=PATH</c> set, each
/// recorded window's first and last record append their monotonic clock time (seconds) to PATH, the ranges
/// <c>perf record -k CLOCK_MONOTONIC</c> then <c>perf report --time START,STOP,…</c> take. A profile then holds the
/// loops' steady state, not a round's start (host built, group joined, code compiled).
/// </summary>
internal static class ProfilerWindow
{
    private static readonly string? WindowsFile = Environment.GetEnvironmentVariable("KAFKAPROTOBUF_PROFILE_WINDOWS");

    /// <summary>Whether this round is recorded: warm-up rounds are left out of the profile as out of the figures.</summary>
    public static bool Armed { get; set; }

    public static void Opened() => Append(",");

    public static void Closed() => Append("\n");

    private static void Append(string after)
    {
        if (WindowsFile is null || !Armed)
        {
            return;
        }

        // On Linux the stopwatch reads CLOCK_MONOTONIC in nanoseconds: the clock perf's -k CLOCK_MONOTONIC stamps samples with.
        double seconds = Stopwatch.GetTimestamp() / (double)Stopwatch.Frequency;
        File.AppendAllText(WindowsFile, seconds.ToString("F6", CultureInfo.InvariantCulture) + after);
    }
}
