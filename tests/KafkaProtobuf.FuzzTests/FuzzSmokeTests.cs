using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Text.RegularExpressions;
using KafkaProtobuf.Tests.Shared;
using Xunit;

namespace KafkaProtobuf.FuzzTests;

public partial class FuzzSmokeTests
{
    private const int Seconds = 25;

    [SkippableTheory]
    [InlineData("reader")]
    [InlineData("typed")]
    [InlineData("multi")]
    [InlineData("tool")]
    [InlineData("registry")]
    public void Harness_FuzzesWithoutFindings(string target)
    {
        Skip.IfNot(DotNet.IsOnPath("afl-fuzz"), "afl-fuzz is not installed (Debian: apt-get install afl++); .ci/run installs it.");
        string work = Directory.CreateTempSubdirectory("kafkaprotobuf-fuzz-").FullName;
        try
        {
            (int exitCode, string report) = DotNet.Run(
                "bash",
                $"fuzz/run.sh {target} {Seconds.ToString(CultureInfo.InvariantCulture)}",
                DotNet.RepositoryRoot,
                TimeSpan.FromMinutes(6),
                new Dictionary<string, string> { ["FUZZ_WORK"] = work });

            Assert.True(exitCode == 0, $"fuzz/run.sh {target} exited with {exitCode}:\n{report}");
            Match summary = Summary().Match(report);
            Assert.True(summary.Success, report);
            Assert.True(long.Parse(summary.Groups["executions"].Value, CultureInfo.InvariantCulture) > 10_000, report);
            Assert.True(long.Parse(summary.Groups["edges"].Value, CultureInfo.InvariantCulture) > 50, report); // the instrumentation works
        }
        finally
        {
            Directory.Delete(work, recursive: true);
        }
    }

    [GeneratedRegex(@"fuzz \w+: (?<executions>\d+) executions, [\d.]+ execs/s, (?<edges>\d+) edges, \d+ corpus entries, 0 crashes, 0 hangs")]
    private static partial Regex Summary();
}
