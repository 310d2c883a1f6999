using System;
using System.Diagnostics;
using System.IO;
using System.Threading.Tasks;

namespace KafkaProtobuf.Tests.Tool;

/// <summary>Runs the built kafka-protobuf tool as its own process, as a user would, with a deadline; kills it past that.</summary>
public static class ToolProcess
{
    public sealed record Result(int ExitCode, string Output, string Error);

    /// <summary>
    /// How the tests start the built tool, its output and error redirected: with SIGINT at its default action, as a
    /// shell starts a foreground command. When this test process ignores SIGINT (a CI run started as a background job),
    /// the tool would inherit that, so it is started through <c>env --default-signal=INT</c>.
    /// </summary>
    public static ProcessStartInfo StartInfo(string[] args)
    {
        string dotnet = Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? "dotnet";
        var start = new ProcessStartInfo { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        if (OperatingSystem.IsLinux() && Posix.IsIgnoredHere(Posix.SIGINT))
        {
            start.FileName = "env";
            start.ArgumentList.Add("--default-signal=INT");
            start.ArgumentList.Add(dotnet);
        }
        else
        {
            start.FileName = dotnet;
        }

        start.ArgumentList.Add(Path.Combine(AppContext.BaseDirectory, "kafka-protobuf.dll"));
        foreach (string arg in args)
        {
            start.ArgumentList.Add(arg);
        }

        return start;
    }

    public static Task<Result> RunAsync(params string[] args) => RunAsync(null, args);

    /// <summary>Runs the tool with these environment variables set (or, with a null value, removed).</summary>
    public static async Task<Result> RunAsync(System.Collections.Generic.IReadOnlyDictionary<string, string?>? environment, params string[] args)
    {
        ProcessStartInfo start = StartInfo(args);
        foreach (System.Collections.Generic.KeyValuePair<string, string?> variable in environment ?? new System.Collections.Generic.Dictionary<string, string?>())
        {
            if (variable.Value is null)
            {
                start.Environment.Remove(variable.Key);
            }
            else
            {
                start.Environment[variable.Key] = variable.Value;
            }
        }

        using Process process = Process.Start(start) ?? throw new InvalidOperationException("the tool did not start");
        Task<string> output = process.StandardOutput.ReadToEndAsync();
        Task<string> error = process.StandardError.ReadToEndAsync();
        Task exited = process.WaitForExitAsync();
        if (await Task.WhenAny(exited, Task.Delay(TimeSpan.FromSeconds(90))) != exited)
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException("kafka-protobuf " + string.Join(' ', args) + " did not end; it wrote: " + await error);
        }

        return new Result(process.ExitCode, await output, await error);
    }
}
