using System;
using System.IO;
using System.IO.Compression;
using System.Linq;
using System.Xml.Linq;
using KafkaProtobuf.Tests.Shared;
using Xunit;

namespace KafkaProtobuf.PackageTests;

[Collection(PackedPackagesShared.Name)]
public class PackageTests(PackedPackages packages)
{
    private static XDocument Nuspec(string nupkg)
    {
        using ZipArchive zip = ZipFile.OpenRead(nupkg);
        ZipArchiveEntry entry = zip.Entries.Single(e => e.FullName.EndsWith(".nuspec", StringComparison.Ordinal));
        using Stream stream = entry.Open();
        return XDocument.Load(stream);
    }

    private static string[] Entries(string file)
    {
        using ZipArchive zip = ZipFile.OpenRead(file);
        return zip.Entries.Select(e => e.FullName).ToArray();
    }

    private static XElement Metadata(XDocument nuspec) => nuspec.Root!.Elements().Single(e => e.Name.LocalName == "metadata");

    private static string? Field(XDocument nuspec, string name) =>
        Metadata(nuspec).Elements().SingleOrDefault(e => e.Name.LocalName == name)?.Value;

    private static string[] Dependencies(XDocument nuspec, string targetFramework) =>
        Metadata(nuspec).Descendants().Where(e => e.Name.LocalName == "group" && (string?)e.Attribute("targetFramework") == targetFramework)
            .SelectMany(g => g.Elements().Select(d => $"{d.Attribute("id")!.Value} {d.Attribute("version")!.Value}"))
            .Order()
            .ToArray();

    [Fact]
    public void KafkaProtobuf_HasEveryTargetWithXmlDocsTheReadmeAndSymbols()
    {
        string[] entries = Entries(packages.Package("KafkaProtobuf"));
        foreach (string tfm in new[] { "netstandard2.0", "net8.0", "net10.0" })
        {
            Assert.Contains($"lib/{tfm}/KafkaProtobuf.dll", entries);
            Assert.Contains($"lib/{tfm}/KafkaProtobuf.xml", entries);
        }

        Assert.Contains("README.md", entries);
        Assert.Contains(Entries(packages.Symbols("KafkaProtobuf")), e => e == "lib/net10.0/KafkaProtobuf.pdb");
    }

    [Fact]
    public void KafkaProtobuf_MetadataIsComplete()
    {
        XDocument nuspec = Nuspec(packages.Package("KafkaProtobuf"));
        Assert.Equal("MIT", Field(nuspec, "license"));
        Assert.Equal("README.md", Field(nuspec, "readme"));
        Assert.False(string.IsNullOrWhiteSpace(Field(nuspec, "description")));
        Assert.False(string.IsNullOrWhiteSpace(Field(nuspec, "projectUrl")));
        Assert.StartsWith("1.1.0: ", Field(nuspec, "releaseNotes"), StringComparison.Ordinal); // the release's summary, not only a link
        Assert.Contains("kafka", Field(nuspec, "tags"), StringComparison.Ordinal);
        XElement repository = Metadata(nuspec).Elements().Single(e => e.Name.LocalName == "repository");
        Assert.Equal("git", (string?)repository.Attribute("type"));
        Assert.False(string.IsNullOrEmpty((string?)repository.Attribute("url")));
        Assert.False(string.IsNullOrEmpty((string?)repository.Attribute("commit"))); // SourceLink and deterministic builds need it
    }

    [Fact]
    public void KafkaProtobuf_DependsOnTheLowestVersionsItNeeds()
    {
        XDocument nuspec = Nuspec(packages.Package("KafkaProtobuf"));
        Assert.Equal(
            ["Confluent.Kafka 2.15.1", "Google.Protobuf 3.19.3", "System.Diagnostics.DiagnosticSource 6.0.0", "System.Memory 4.6.3", "System.Text.Json 8.0.5"],
            Dependencies(nuspec, ".NETStandard2.0")); // System.Text.Json there only: the decoder's JSON (KafkaProtobuf.Decoding)
        Assert.Equal(["Confluent.Kafka 2.15.1", "Google.Protobuf 3.19.3"], Dependencies(nuspec, "net8.0"));
        Assert.Equal(["Confluent.Kafka 2.15.1", "Google.Protobuf 3.19.3"], Dependencies(nuspec, "net10.0"));
    }

    [Fact]
    public void KafkaProtobufSchemaRegistry_HasItsTargets_AndDependsOnTheCorePackageAndTheLoggingAbstractions()
    {
        string[] entries = Entries(packages.Package("KafkaProtobuf.SchemaRegistry"));
        foreach (string framework in new[] { "netstandard2.0", "net8.0", "net10.0" })
        {
            Assert.Contains($"lib/{framework}/KafkaProtobuf.SchemaRegistry.dll", entries);
            Assert.Contains($"lib/{framework}/KafkaProtobuf.SchemaRegistry.xml", entries);
        }

        XDocument nuspec = Nuspec(packages.Package("KafkaProtobuf.SchemaRegistry"));
        string core = "KafkaProtobuf " + packages.Version;
        string logging = "Microsoft.Extensions.Logging.Abstractions 8.0.2"; // the warning when certificate verification is off
        Assert.Equal([core, logging], Dependencies(nuspec, "net8.0"));
        Assert.Equal([core, logging], Dependencies(nuspec, "net10.0"));
        // There only: JSON by source generation, and TimeProvider (the OAuth token's clock).
        Assert.Equal([core, "Microsoft.Bcl.TimeProvider 8.0.1", logging, "System.Text.Json 8.0.5"], Dependencies(nuspec, ".NETStandard2.0"));
    }

    [Fact]
    public void KafkaProtobufStreamiz_HasEveryTarget_AndDependsOnTheRegistryPackageAndStreamiz()
    {
        string[] entries = Entries(packages.Package("KafkaProtobuf.Streamiz"));
        foreach (string framework in new[] { "netstandard2.0", "net8.0", "net10.0" })
        {
            Assert.Contains($"lib/{framework}/KafkaProtobuf.Streamiz.dll", entries);
            Assert.Contains($"lib/{framework}/KafkaProtobuf.Streamiz.xml", entries);
        }

        XDocument nuspec = Nuspec(packages.Package("KafkaProtobuf.Streamiz"));
        foreach (string framework in new[] { "net8.0", "net10.0", ".NETStandard2.0" })
        {
            Assert.Equal(["KafkaProtobuf.SchemaRegistry " + packages.Version, "Streamiz.Kafka.Net 1.8.2"], Dependencies(nuspec, framework));
        }
    }

    [Fact]
    public void KafkaProtobufHosting_HasEveryTarget_AndDependsOnTheCorePackageAndTheHostingAbstractions()
    {
        string[] entries = Entries(packages.Package("KafkaProtobuf.Hosting"));
        foreach (string framework in new[] { "netstandard2.0", "net8.0", "net10.0" })
        {
            Assert.Contains($"lib/{framework}/KafkaProtobuf.Hosting.dll", entries);
            Assert.Contains($"lib/{framework}/KafkaProtobuf.Hosting.xml", entries);
        }

        XDocument nuspec = Nuspec(packages.Package("KafkaProtobuf.Hosting"));
        Assert.Equal(
            ["KafkaProtobuf " + packages.Version, "Microsoft.Extensions.Diagnostics.HealthChecks 8.0.0", "Microsoft.Extensions.Hosting.Abstractions 8.0.1"],
            Dependencies(nuspec, "net8.0"));
        Assert.Equal(
            [
                "KafkaProtobuf " + packages.Version, "Microsoft.Bcl.TimeProvider 8.0.1", "Microsoft.Extensions.Diagnostics.HealthChecks 8.0.0",
                "Microsoft.Extensions.Hosting.Abstractions 8.0.1",
            ],
            Dependencies(nuspec, ".NETStandard2.0")); // TimeProvider is in the BCL from .NET 8
    }

    [Fact]
    public void KafkaProtobufTesting_HasItsTargets_AndItsParserOnlyAtRunTime()
    {
        string[] entries = Entries(packages.Package("KafkaProtobuf.Testing"));
        Assert.Contains("lib/net8.0/KafkaProtobuf.Testing.dll", entries);
        Assert.Contains("lib/net10.0/KafkaProtobuf.Testing.dll", entries);
        // Google.Protobuf for the in-process schema registry (descriptors, .proto text), the registry package for its
        // compatibility checker, protobuf-net.Reflection for .proto text.
        XDocument nuspec = Nuspec(packages.Package("KafkaProtobuf.Testing"));
        Assert.Equal(
            ["Confluent.Kafka 2.15.1", "Google.Protobuf 3.19.3", "KafkaProtobuf.SchemaRegistry " + packages.Version, "protobuf-net.Reflection 3.4.40"],
            Dependencies(nuspec, "net8.0"));

        // protobuf-net.Reflection declares Google.Protobuf.Reflection types of its own: kept out of users' compilation,
        // so that their FileDescriptorSet is never ambiguous.
        XElement parser = Metadata(nuspec).Descendants().Single(e => e.Name.LocalName == "dependency" && (string?)e.Attribute("id") == "protobuf-net.Reflection" && (string?)e.Parent!.Attribute("targetFramework") == "net8.0");
        Assert.Contains("Compile", (string?)parser.Attribute("exclude") ?? string.Empty, StringComparison.Ordinal);
    }

    [Fact]
    public void AConsumerProjectUsingAllSixPackedPackages_BuildsRunsAndItsFrameReadsWithTheLocalTool()
    {
        string project = Directory.CreateDirectory(Path.Combine(packages.WorkDirectory, "consumer")).FullName;
        string template = Path.Combine(AppContext.BaseDirectory, "ConsumerTemplate");
        File.WriteAllText(
            Path.Combine(project, "Consumer.csproj"),
            File.ReadAllText(Path.Combine(template, "Consumer.csproj.template")).Replace("$(PackageVersion)", packages.Version, StringComparison.Ordinal));
        File.Copy(Path.Combine(template, "Program.cs"), Path.Combine(project, "Program.cs"));
        File.Copy(Path.Combine(template, "greeting.proto"), Path.Combine(project, "greeting.proto"));
        packages.AddFeedTo(project);

        string output = DotNet.Dotnet("run -c Release", project, TimeSpan.FromMinutes(5));

        Assert.Contains("package consumer: OK", output, StringComparison.Ordinal);
        string assets = File.ReadAllText(Path.Combine(project, "obj", "project.assets.json"));
        foreach (string package in new[] { "KafkaProtobuf", "KafkaProtobuf.SchemaRegistry", "KafkaProtobuf.Hosting", "KafkaProtobuf.Streamiz", "KafkaProtobuf.Testing" })
        {
            Assert.Contains($"\"{package}/{packages.Version}\"", assets, StringComparison.Ordinal); // from the package, not a project
        }

        // The tool as a project's local tool (a manifest), reading the frame the Streamiz serdes wrote.
        string frame = output.Split('\n').Single(line => line.StartsWith("frame: ", StringComparison.Ordinal))["frame: ".Length..].Trim();
        DotNet.Dotnet("new tool-manifest", project, TimeSpan.FromMinutes(1));
        DotNet.Dotnet($"tool install KafkaProtobuf.Tool --version {packages.Version}", project, TimeSpan.FromMinutes(3));
        string described = DotNet.Dotnet("tool run kafka-protobuf frame " + frame, project, TimeSpan.FromMinutes(1));

        Assert.Contains("schema         id 1", described, StringComparison.Ordinal); // the in-process registry's first id
        Assert.Contains("message index  [0]", described, StringComparison.Ordinal);
        Assert.Contains($"payload        {(frame.Length / 2) - 6} bytes at 6", described, StringComparison.Ordinal);
    }

    [Fact]
    public void TheToolPackage_InstallsWithDotnetToolInstall_AndLaysOutAConfluentFrame()
    {
        string[] entries = Entries(packages.Package("KafkaProtobuf.Tool"));
        Assert.Contains("tools/net8.0/any/kafka-protobuf.dll", entries);
        Assert.Contains("tools/net8.0/any/DotnetToolSettings.xml", entries);

        string work = Directory.CreateDirectory(Path.Combine(packages.WorkDirectory, "tool")).FullName;
        string config = Path.Combine(work, "nuget.config");
        File.WriteAllText(config, $"""
            <?xml version="1.0" encoding="utf-8"?>
            <configuration>
              <packageSources>
                <clear />
                <add key="packed" value="{packages.Feed}" />
              </packageSources>
            </configuration>
            """);
        string toolPath = Path.Combine(work, "bin");
        DotNet.Dotnet($"tool install KafkaProtobuf.Tool --version {packages.Version} --tool-path \"{toolPath}\" --configfile \"{config}\"", work, TimeSpan.FromMinutes(3));

        // The first frame of tests/KafkaProtobuf.Tests/Vectors/confluent-dotnet-2.15.0.jsonl, written by Confluent's
        // .NET ProtobufSerializer 2.15.0: schema id 1, path [0], a 51-byte Reading.
        const string Vector = "0000000001000a06732dc3a42d311100000000008035401853220608a8888bd8062a1001feffffffffffffffff01ac02f0a2043204010203ff";
        string output = Run(Path.Combine(toolPath, "kafka-protobuf"), "frame " + Vector);

        Assert.Contains("schema         id 1", output, StringComparison.Ordinal);
        Assert.Contains("message index  [0]", output, StringComparison.Ordinal);
        Assert.Contains("payload        51 bytes at 6", output, StringComparison.Ordinal);
    }

    private static string Run(string executable, string arguments)
    {
        var start = new System.Diagnostics.ProcessStartInfo(executable, arguments) { RedirectStandardOutput = true, RedirectStandardError = true };
        using System.Diagnostics.Process process = System.Diagnostics.Process.Start(start)!;
        System.Threading.Tasks.Task<string> output = process.StandardOutput.ReadToEndAsync();
        System.Threading.Tasks.Task<string> error = process.StandardError.ReadToEndAsync();
        if (!process.WaitForExit(60_000))
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException(executable + " did not end");
        }

        Assert.True(process.ExitCode == 0, $"exit {process.ExitCode}: {error.Result}");
        return output.Result;
    }
}
