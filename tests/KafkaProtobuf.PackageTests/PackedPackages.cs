using System;
using System.Globalization;
using System.IO;
using System.Threading.Tasks;
using KafkaProtobuf.Tests.Shared;

namespace KafkaProtobuf.PackageTests;

/// <summary>
/// Packs KafkaProtobuf, KafkaProtobuf.Testing, KafkaProtobuf.SchemaRegistry, KafkaProtobuf.Hosting, KafkaProtobuf.Streamiz and the KafkaProtobuf.Tool .NET tool once per test run, with a version of their own so that NuGet's cache
/// cannot serve an older build.
/// </summary>
public sealed class PackedPackages : IDisposable
{
    private static readonly string[] Projects = ["KafkaProtobuf", "KafkaProtobuf.Testing", "KafkaProtobuf.SchemaRegistry", "KafkaProtobuf.Hosting", "KafkaProtobuf.Streamiz", "KafkaProtobuf.Tool"];

    public PackedPackages()
    {
        Version = "0.0.0-ci." + DateTime.UtcNow.ToString("yyyyMMddHHmmssfff", CultureInfo.InvariantCulture);
        WorkDirectory = Directory.CreateTempSubdirectory("kafkaprotobuf-package-tests-").FullName;
        Feed = Path.Combine(WorkDirectory, "feed");
        // This test project references them all (without their assemblies), so every target framework is built by now;
        // packing without building cannot race the rest of the solution's build. Without a build, pack restores nothing
        // and writes only its own project's files, so the six run side by side (each is mostly MSBuild starting up).
        Parallel.ForEach(
            Projects,
            project => DotNet.Dotnet(
                $"pack src/{project}/{project}.csproj -c Release --no-build -o \"{Feed}\" -p:Version={Version}",
                DotNet.RepositoryRoot,
                TimeSpan.FromMinutes(5)));
    }

    public string Version { get; }

    public string WorkDirectory { get; }

    /// <summary>A folder holding the .nupkg and .snupkg files.</summary>
    public string Feed { get; }

    public string Package(string id) => Path.Combine(Feed, $"{id}.{Version}.nupkg");

    public string Symbols(string id) => Path.Combine(Feed, $"{id}.{Version}.snupkg");

    public void Dispose()
    {
        try
        {
            Directory.Delete(WorkDirectory, recursive: true);
        }
        catch (IOException)
        {
            // a temp folder left behind is not a test failure
        }
    }
}
