using System;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Runtime.InteropServices;
using System.Text;

namespace KafkaProtobuf.Benchmarks.Tools;

/// <summary>
/// What the schema check costs a build, measured as the build runs it: N .proto files (each importing a shared file and
/// Google's timestamp, two messages of 16 fields, a nested message and an enum) recorded in a baseline, then, each round,
/// Grpc.Tools' protoc writing them with source positions and <c>kafka-protobuf schema check --baseline … --output msvs</c>
/// in a process of its own, wall time (the .NET start included, as in a build). <c>dotnet run -c Release -- schemas [files] [rounds]</c>.
/// </summary>
public static class SchemaCheckTime
{
    public static void Run(string[] args)
    {
        int files = args.Length > 1 ? int.Parse(args[1], CultureInfo.InvariantCulture) : 50;
        int rounds = args.Length > 2 ? int.Parse(args[2], CultureInfo.InvariantCulture) : 15;
        string root = Directory.CreateTempSubdirectory("kafkaprotobuf-schemas-").FullName;
        try
        {
            string protos = Directory.CreateDirectory(Path.Combine(root, "protos")).FullName;
            string baseline = Path.Combine(root, "baseline");
            Write(protos, files);
            for (int i = 0; i < files; i++)
            {
                Tool($"schema baseline write \"{baseline}\" \"{Path.Combine(protos, "shop", $"file{i}.proto")}\" -I \"{protos}\" --subject file{i}-value");
            }

            string set = Path.Combine(root, "schemas.pb");
            string targets = string.Join(' ', Enumerable.Range(0, files).Select(i => $"\"{Path.Combine(protos, "shop", $"file{i}.proto")}\""));
            var protoc = new double[rounds];
            var check = new double[rounds];
            for (int round = -2; round < rounds; round++)
            {
                long start = Stopwatch.GetTimestamp();
                RunProcess(Protoc, $"--include_imports --include_source_info --descriptor_set_out=\"{set}\" -I \"{protos}\" -I \"{ProtocInclude}\" {targets}");
                double protocMs = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
                start = Stopwatch.GetTimestamp();
                string output = Tool($"schema check --baseline \"{baseline}\" --descriptor-set \"{set}\" -I \"{protos}\" --output msvs");
                double checkMs = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
                if (output.Length > 0)
                {
                    throw new InvalidOperationException("the check found changes in unchanged files: " + output);
                }

                if (round >= 0)
                {
                    protoc[round] = protocMs;
                    check[round] = checkMs;
                }
            }

            Console.WriteLine($"{files} .proto files against their baseline, {rounds} rounds after 2 warm-up rounds, each a process of its own; .NET {Environment.Version}, {Environment.ProcessorCount} cores");
            Console.WriteLine("| Step | median | min | max |");
            Console.WriteLine("|---|---:|---:|---:|");
            Console.WriteLine(Row("protoc writes the files with source positions", protoc));
            Console.WriteLine(Row("kafka-protobuf schema check --baseline (msvs)", check));
            Console.WriteLine(Row("both: what the build's check target costs", protoc.Zip(check, (a, b) => a + b).ToArray()));
        }
        finally
        {
            Directory.Delete(root, recursive: true);
        }
    }

    private static void Write(string protos, int files)
    {
        string shop = Directory.CreateDirectory(Path.Combine(protos, "shop")).FullName;
        File.WriteAllText(Path.Combine(shop, "common.proto"), "syntax = \"proto3\";\npackage shop;\nmessage Money { string currency = 1; int64 units = 2; }\nmessage Address { string street = 1; string city = 2; }\n");
        for (int i = 0; i < files; i++)
        {
            var text = new StringBuilder();
            text.Append("syntax = \"proto3\";\npackage shop.f").Append(i).Append(";\nimport \"shop/common.proto\";\nimport \"google/protobuf/timestamp.proto\";\n");
            foreach (string message in new[] { "Placed", "Shipped" })
            {
                text.Append("message ").Append(message).Append(" {\n  enum State { STATE_UNSPECIFIED = 0; STATE_OPEN = 1; STATE_DONE = 2; }\n  message Line { string sku = 1; int32 quantity = 2; shop.Money price = 3; }\n");
                for (int field = 1; field <= 12; field++)
                {
                    text.Append("  string text_").Append(field).Append(" = ").Append(field).Append(";\n");
                }

                text.Append("  repeated Line lines = 13;\n  shop.Address to = 14;\n  google.protobuf.Timestamp at = 15;\n  State state = 16;\n}\n");
            }

            File.WriteAllText(Path.Combine(shop, $"file{i}.proto"), text.ToString());
        }
    }

    private static string Row(string step, double[] times)
    {
        double[] sorted = times.Order().ToArray();
        return FormattableString.Invariant($"| {step} | {sorted[sorted.Length / 2]:F0} ms | {sorted[0]:F0} ms | {sorted[^1]:F0} ms |");
    }

    private static string Tool(string arguments) => RunProcess("dotnet", "\"" + ToolPath + "\" " + arguments);

    private static string RunProcess(string file, string arguments)
    {
        var start = new ProcessStartInfo(file, arguments) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        using Process process = Process.Start(start)!;
        string output = process.StandardOutput.ReadToEnd();
        string error = process.StandardError.ReadToEnd();
        if (!process.WaitForExit(120_000))
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException(file + " did not finish");
        }

        if (process.ExitCode != 0)
        {
            throw new InvalidOperationException(file + " " + arguments + " exited with " + process.ExitCode + ": " + error + output);
        }

        return output;
    }

    private static string Repository
    {
        get
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

    /// <summary>The tool as the build package runs it: its Release build.</summary>
    private static string ToolPath => Path.Combine(Repository, "src", "KafkaProtobuf.Tool", "bin", "Release", "net8.0", "kafka-protobuf.dll");

    private static string GrpcTools
    {
        get
        {
            string packages = typeof(SchemaCheckTime).Assembly.GetCustomAttributes<AssemblyMetadataAttribute>().Single(a => a.Key == "NuGetPackageRoot").Value!;
            return Directory.GetDirectories(Path.Combine(packages, "grpc.tools")).Order(StringComparer.Ordinal).Last();
        }
    }

    private static string Protoc
    {
        get
        {
            string os = OperatingSystem.IsWindows() ? "windows" : OperatingSystem.IsMacOS() ? "macosx" : "linux";
            string cpu = RuntimeInformation.OSArchitecture == Architecture.Arm64 ? "arm64" : "x64";
            return Path.Combine(GrpcTools, "tools", os + "_" + cpu, OperatingSystem.IsWindows() ? "protoc.exe" : "protoc");
        }
    }

    private static string ProtocInclude => Path.Combine(GrpcTools, "build", "native", "include");
}
