using System;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using KafkaProtobuf.Tests.Shared;

namespace KafkaProtobuf.PackageTests;

/// <summary>
/// Packs KafkaProtobuf, KafkaProtobuf.Testing, KafkaProtobuf.SchemaRegistry, KafkaProtobuf.Hosting, KafkaProtobuf.Streamiz, KafkaProtobuf.Aspire, KafkaProtobuf.Aspire.Hosting, KafkaProtobuf.AspNetCore and the KafkaProtobuf.Tool .NET tool once per test run, with a version of their own so that NuGet's cache
/// cannot serve an older build.
/// </summary>
public sealed class PackedPackages : IDisposable
{
    private static readonly string[] Libraries = ["KafkaProtobuf", "KafkaProtobuf.Testing", "KafkaProtobuf.SchemaRegistry", "KafkaProtobuf.Hosting", "KafkaProtobuf.Streamiz", "KafkaProtobuf.Aspire", "KafkaProtobuf.Aspire.Hosting", "KafkaProtobuf.AspNetCore"];

    private static readonly string[] Projects = [.. Libraries, "KafkaProtobuf.Tool"];

    private readonly ScratchDirectory _work = new("kafkaprotobuf-package-tests-");

    public PackedPackages()
    {
        Version = "0.0.0-ci." + DateTime.UtcNow.ToString("yyyyMMddHHmmssfff", CultureInfo.InvariantCulture);
        Feed = Path.Combine(WorkDirectory, "feed");
        try
        {
            (BaselineVersion, BaselineFeed) = PackBaseline(WorkDirectory);
            // This test project references them all (without their assemblies), so every target framework is built by now;
            // packing without building cannot race the rest of the solution's build. Without a build, pack restores nothing
            // and writes only its own project's files, so the six run side by side (each is mostly MSBuild starting up).
            Parallel.ForEach(
                Projects,
                project => DotNet.Dotnet(
                    $"pack src/{project}/{project}.csproj -c Release --no-build -o \"{Feed}\" -p:Version={Version} -p:PackageBaselineFeed=\"{BaselineFeed}\" -p:PackageBaselineVersion={BaselineVersion}",
                    DotNet.RepositoryRoot,
                    TimeSpan.FromMinutes(5)));
        }
        catch
        {
            _work.Dispose(); // xunit disposes no fixture whose constructor threw
            throw;
        }
    }

    public string Version { get; }

    /// <summary>The release the packages are validated against (eng/package-baseline.txt).</summary>
    public string BaselineVersion { get; }

    /// <summary>A folder holding the release's five library packages, rebuilt from its commit.</summary>
    public string BaselineFeed { get; }

    public string WorkDirectory => _work.Path;

    /// <summary>A folder holding the .nupkg and .snupkg files.</summary>
    public string Feed { get; }

    /// <summary>Writes a nuget.config that adds the packed feed to the sources a project in <paramref name="directory"/> restores from.</summary>
    public void AddFeedTo(string directory) =>
        File.WriteAllText(Path.Combine(directory, "nuget.config"), $"""
            <?xml version="1.0" encoding="utf-8"?>
            <configuration>
              <packageSources>
                <add key="packed" value="{Feed}" />
              </packageSources>
            </configuration>
            """);

    public string Package(string id) => Path.Combine(Feed, $"{id}.{Version}.nupkg");

    public string Symbols(string id) => Path.Combine(Feed, $"{id}.{Version}.snupkg");

    /// <summary>
    /// Packs the libraries as they were at the release eng/package-baseline.txt names (its commit, checked out beside
    /// the repository), so that packing them now runs package validation against the release: nothing is committed
    /// but the commit's id.
    /// </summary>
    private static (string Version, string Feed) PackBaseline(string workDirectory)
    {
        string[] baseline = File.ReadAllText(Path.Combine(DotNet.RepositoryRoot, "eng", "package-baseline.txt"))
            .Split('\n').Select(l => l.Trim()).First(l => l.Length > 0 && !l.StartsWith('#')).Split(' ', StringSplitOptions.RemoveEmptyEntries);
        (string version, string commit) = (baseline[0], baseline[1]);
        string source = Path.Combine(workDirectory, "baseline-source");
        string feed = Path.Combine(workDirectory, "baseline-feed");
        Git($"worktree add --detach \"{source}\" {commit}", "the release's commit must be in this clone's history (a shallow clone lacks it)");
        try
        {
            // Sequential: each pack builds what the package needs, the later ones find their references built. The
            // release's net10.0 assemblies only, a third of the build: the API of the other frameworks is held by the
            // PublicAPI files on each framework's build, and package validation checks the frameworks against each other.
            // A library first released after the baseline is not there: nothing to compare it with.
            foreach (string library in Libraries.Where(l => File.Exists(Path.Combine(source, "src", l, l + ".csproj"))))
            {
                DotNet.Dotnet(
                    $"pack src/{library}/{library}.csproj -c Release -o \"{feed}\" -p:Version={version} -p:TargetFrameworks=net10.0 -p:EnablePackageValidation=false",
                    source,
                    TimeSpan.FromMinutes(10));
            }
        }
        finally
        {
            Git($"worktree remove --force \"{source}\"", "the baseline's worktree could not be removed");
        }

        return (version, feed);
    }

    private static void Git(string arguments, string why)
    {
        (int code, string output) = DotNet.Run("git", arguments, DotNet.RepositoryRoot, TimeSpan.FromMinutes(2));
        if (code != 0)
        {
            throw new InvalidOperationException($"'git {arguments}' exited with {code} ({why}):\n{output}");
        }
    }

    public void Dispose() => _work.Dispose();
}
