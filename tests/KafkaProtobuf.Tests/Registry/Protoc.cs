using System;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Runtime.InteropServices;
using Google.Protobuf.Reflection;

namespace KafkaProtobuf.Tests.Registry;

/// <summary>The protoc that Grpc.Tools ships, run on .proto text: compiles it to a descriptor set.</summary>
public static class Protoc
{
    private static readonly Lazy<string> Tools = new(() =>
    {
        string root = typeof(Protoc).Assembly.GetCustomAttributes<AssemblyMetadataAttribute>().Single(a => a.Key == "NuGetPackageRoot").Value!;
        string package = Directory.GetDirectories(Path.Combine(root, "grpc.tools")).OrderBy(d => d, StringComparer.Ordinal).Last();
        return package;
    });

    public static string IncludeDirectory => Path.Combine(Tools.Value, "build", "native", "include");

    private static string Executable
    {
        get
        {
            string os = OperatingSystem.IsWindows() ? "windows" : OperatingSystem.IsMacOS() ? "macosx" : "linux";
            string cpu = RuntimeInformation.OSArchitecture == Architecture.Arm64 ? "arm64" : "x64";
            return Path.Combine(Tools.Value, "tools", os + "_" + cpu, OperatingSystem.IsWindows() ? "protoc.exe" : "protoc");
        }
    }

    /// <summary>Writes the files (relative name → text) to a folder and compiles <paramref name="target"/>.</summary>
    public static FileDescriptorProto Compile(string target, params (string Name, string Text)[] files)
    {
        string folder = Path.Combine(Path.GetTempPath(), "kafkaprotobuf-protoc-" + Guid.NewGuid().ToString("N"));
        try
        {
            foreach ((string name, string text) in files)
            {
                string path = Path.Combine(folder, name);
                Directory.CreateDirectory(Path.GetDirectoryName(path)!);
                File.WriteAllText(path, text);
            }

            return CompileIn(folder, target).File.Single(f => f.Name == target);
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    /// <summary>Compiles files of a folder as it is (<c>-I folder</c>, then protoc's own well-known files): the set with their imports.</summary>
    public static FileDescriptorSet CompileIn(string folder, params string[] targets)
    {
        string output = Path.Combine(Path.GetTempPath(), "kafkaprotobuf-protoc-" + Guid.NewGuid().ToString("N") + ".pb");
        try
        {
            Run(folder, output, sourceInfo: false, targets);
            return FileDescriptorSet.Parser.ParseFrom(File.ReadAllBytes(output));
        }
        finally
        {
            File.Delete(output);
        }
    }

    /// <summary>Writes the descriptor set a build would: imports included, with source positions (<c>--include_source_info</c>).</summary>
    public static void WriteDescriptorSet(string folder, string output, params string[] targets) => Run(folder, output, sourceInfo: true, targets);

    private static void Run(string folder, string output, bool sourceInfo, string[] targets)
    {
        var start = new ProcessStartInfo(Executable) { RedirectStandardError = true, RedirectStandardOutput = true, UseShellExecute = false };
        string[] options = ["-I", folder, "-I", IncludeDirectory, "--include_imports", "--descriptor_set_out=" + output, .. sourceInfo ? new[] { "--include_source_info" } : []];
        foreach (string argument in options.Concat(targets))
        {
            start.ArgumentList.Add(argument);
        }

        using Process process = Process.Start(start)!;
        string errors = process.StandardError.ReadToEnd();
        if (!process.WaitForExit(60_000))
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException("protoc did not finish");
        }

        if (process.ExitCode != 0)
        {
            throw new InvalidOperationException("protoc failed: " + errors);
        }
    }
}
