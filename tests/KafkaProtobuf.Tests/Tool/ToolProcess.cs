using System;
using System.Diagnostics;
using System.IO;
using System.Threading.Tasks;

namespace KafkaProtobuf.Tests.Tool;

/// <summary>Runs the built kafka-protobuf tool as its own process, as a user would, with a deadline; kills it past that.</summary>
public static class ToolProcess
{
    public sealed record Result(int ExitCode, string Output, string Error);

    public static async Task<Result> RunAsync(params string[] args)
    {
        var start = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? "dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        start.ArgumentList.Add(Path.Combine(AppContext.BaseDirectory, "kafka-protobuf.dll"));
        foreach (string arg in args)
        {
            start.ArgumentList.Add(arg);
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
