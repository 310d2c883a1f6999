using System;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using Xunit;

namespace KafkaProtobuf.FuzzTests;

public partial class FuzzSmokeTests
{
    private const int Seconds = 45;

    [SkippableTheory]
    [InlineData("reader")]
    [InlineData("typed")]
    [InlineData("multi")]
    public void Harness_FuzzesWithoutFindings(string target)
    {
        Skip.IfNot(OnPath("afl-fuzz"), "afl-fuzz is not installed (Debian: apt-get install afl++); .ci/run installs it.");
        string root = RepositoryRoot();
        string work = Directory.CreateTempSubdirectory("kafkaprotobuf-fuzz-").FullName;
        try
        {
            var start = new ProcessStartInfo("bash", ["fuzz/run.sh", target, Seconds.ToString(System.Globalization.CultureInfo.InvariantCulture)])
            {
                WorkingDirectory = root,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                UseShellExecute = false,
            };
            start.Environment["FUZZ_WORK"] = work;
            using Process process = Process.Start(start)!;
            System.Threading.Tasks.Task<string> stderr = process.StandardError.ReadToEndAsync();
            string stdout = process.StandardOutput.ReadToEnd();
            Assert.True(process.WaitForExit(TimeSpan.FromMinutes(6)), "fuzz/run.sh did not finish");
            string report = stdout + stderr.Result;

            Assert.True(process.ExitCode == 0, $"fuzz/run.sh {target} exited with {process.ExitCode}:\n{report}");
            Match summary = Summary().Match(report);
            Assert.True(summary.Success, report);
            Assert.True(long.Parse(summary.Groups["executions"].Value, System.Globalization.CultureInfo.InvariantCulture) > 10_000, report);
            Assert.True(long.Parse(summary.Groups["edges"].Value, System.Globalization.CultureInfo.InvariantCulture) > 50, report); // the instrumentation works
        }
        finally
        {
            Directory.Delete(work, recursive: true);
        }
    }

    [GeneratedRegex(@"fuzz \w+: (?<executions>\d+) executions, [\d.]+ execs/s, (?<edges>\d+) edges, \d+ corpus entries, 0 crashes, 0 hangs")]
    private static partial Regex Summary();

    private static bool OnPath(string program) =>
        (Environment.GetEnvironmentVariable("PATH") ?? string.Empty)
            .Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries)
            .Any(dir => File.Exists(Path.Combine(dir, program)));

    private static string RepositoryRoot()
    {
        for (DirectoryInfo? dir = new(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "KafkaProtobuf.sln")))
            {
                return dir.FullName;
            }
        }

        throw new InvalidOperationException("KafkaProtobuf.sln not found above " + AppContext.BaseDirectory);
    }
}
