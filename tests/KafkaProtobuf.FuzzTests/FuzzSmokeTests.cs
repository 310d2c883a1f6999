using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Text.RegularExpressions;
using KafkaProtobuf.Tests.Shared;
using Xunit;

namespace KafkaProtobuf.FuzzTests;

/// <summary>
/// Each fuzz target run for a few seconds under AFL++ on one instrumented build of the harness, published and
/// instrumented once for all targets (<see cref="InstrumentedBuild"/>): without findings, with enough executions and
/// edges to show the instrumentation works.
/// </summary>
public partial class FuzzSmokeTests : IClassFixture<FuzzSmokeTests.InstrumentedBuild>
{
    // At a few thousand executions a second even on a loaded machine, this is tens of thousands of inputs.
    private const int Seconds = 10;

    private readonly InstrumentedBuild _build;

    public FuzzSmokeTests(InstrumentedBuild build) => _build = build;

    [SkippableTheory]
    [InlineData("reader")]
    [InlineData("typed")]
    [InlineData("multi")]
    [InlineData("tool")]
    [InlineData("registry")]
    public void Harness_FuzzesWithoutFindings(string target)
    {
        Skip.IfNot(DotNet.IsOnPath("afl-fuzz"), "afl-fuzz is not installed (Debian: apt-get install afl++); .ci/run installs it.");
        string build = _build.Directory;
        string work = Directory.CreateTempSubdirectory("kafkaprotobuf-fuzz-").FullName;
        try
        {
            (int exitCode, string report) = DotNet.Run(
                "bash",
                $"fuzz/run.sh {target} {Seconds.ToString(CultureInfo.InvariantCulture)}",
                DotNet.RepositoryRoot,
                TimeSpan.FromMinutes(6),
                new Dictionary<string, string> { ["FUZZ_WORK"] = work, ["FUZZ_BUILD"] = build });

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

    /// <summary>The harness published, seeded and instrumented once (<c>fuzz/run.sh prepare</c>), deleted after the class.</summary>
    public sealed class InstrumentedBuild : IDisposable
    {
        private readonly Lazy<string> _directory = new(Prepare);

        /// <summary>Prepared on first use, so a machine without AFL++ skips the tests without building anything.</summary>
        public string Directory => _directory.Value;

        public void Dispose()
        {
            if (_directory.IsValueCreated)
            {
                System.IO.Directory.Delete(_directory.Value, recursive: true);
            }
        }

        private static string Prepare()
        {
            string directory = System.IO.Directory.CreateTempSubdirectory("kafkaprotobuf-fuzz-build-").FullName;
            (int exitCode, string report) = DotNet.Run("bash", $"fuzz/run.sh prepare \"{directory}\"", DotNet.RepositoryRoot, TimeSpan.FromMinutes(6));
            Assert.True(exitCode == 0, $"fuzz/run.sh prepare exited with {exitCode}:\n{report}");
            return directory;
        }
    }

    [GeneratedRegex(@"fuzz \w+: (?<executions>\d+) executions, [\d.]+ execs/s, (?<edges>\d+) edges, \d+ corpus entries, 0 crashes, 0 hangs")]
    private static partial Regex Summary();
}
