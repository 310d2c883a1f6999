using System;
using System.IO;
using System.Threading.Tasks;
using KafkaProtobuf.Tool.Commands;

namespace KafkaProtobuf.Tests.Tool;

/// <summary>The tool run in this process (no child process to wait for): its exit code, standard output (line ends as \n) and standard error.</summary>
internal static class InProcessTool
{
    public static async Task<(int Exit, string Output, string Error)> RunAsync(params string[] args)
    {
        using var output = new StringWriter();
        using var error = new StringWriter();
        int exit = await KafkaProtobufTool.RunAsync(args, output, error);
        return (exit, output.ToString().Replace("\r\n", "\n", StringComparison.Ordinal), error.ToString());
    }
}
