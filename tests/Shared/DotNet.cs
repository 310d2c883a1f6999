using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Text;

namespace KafkaProtobuf.Tests.Shared;

/// <summary>
/// Runs the dotnet CLI (or a built program or script) with a deadline, capturing everything it prints; shared by the
/// test projects that drive the repository from outside (package tests, fuzz smoke tests).
/// </summary>
internal static class DotNet
{
    public static string RepositoryRoot { get; } = FindRoot();

    public static (int ExitCode, string Output) Run(
        string fileName, string arguments, string workingDirectory, TimeSpan timeout, IReadOnlyDictionary<string, string>? environment = null)
    {
        var start = new ProcessStartInfo(fileName, arguments)
        {
            WorkingDirectory = workingDirectory,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        start.Environment["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1";
        start.Environment["DOTNET_NOLOGO"] = "1";
        start.Environment["MSBUILDDISABLENODEREUSE"] = "1";
        foreach (KeyValuePair<string, string> variable in environment ?? new Dictionary<string, string>())
        {
            start.Environment[variable.Key] = variable.Value;
        }

        var output = new StringBuilder();
        using var process = new Process { StartInfo = start };
        process.OutputDataReceived += (_, e) => { lock (output) { output.AppendLine(e.Data); } };
        process.ErrorDataReceived += (_, e) => { lock (output) { output.AppendLine(e.Data); } };
        process.Start();
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        if (!process.WaitForExit(timeout))
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException($"'{fileName} {arguments}' did not finish within {timeout}:\n{output}");
        }

        process.WaitForExit(); // drain the output
        lock (output)
        {
            return (process.ExitCode, output.ToString());
        }
    }

    public static string Dotnet(string arguments, string workingDirectory, TimeSpan timeout)
    {
        (int code, string output) = Run("dotnet", arguments, workingDirectory, timeout);
        if (code != 0)
        {
            throw new InvalidOperationException($"'dotnet {arguments}' exited with {code}:\n{output}");
        }

        return output;
    }

    public static bool IsOnPath(string program) =>
        (Environment.GetEnvironmentVariable("PATH") ?? string.Empty)
            .Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries)
            .Any(dir => File.Exists(Path.Combine(dir, program)));

    private static string FindRoot()
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
