using System;
using System.Globalization;
using System.IO;
using KafkaProtobuf.Tests.Shared;

namespace KafkaProtobuf.PackageTests;

/// <summary>
/// Packs KafkaProtobuf, KafkaProtobuf.Testing, KafkaProtobuf.SchemaRegistry, KafkaProtobuf.Hosting, KafkaProtobuf.Streamiz,
/// KafkaProtobuf.Aspire, KafkaProtobuf.Aspire.Hosting, KafkaProtobuf.AspNetCore, KafkaProtobuf.Wolverine, the KafkaProtobuf.Tool .NET tool and KafkaProtobuf.Build once
/// per test run, through eng/pack.sh as a release is packed (validated against the last release), with a version of
/// their own so that NuGet's cache cannot serve an older build.
/// </summary>
public sealed class PackedPackages : IDisposable
{
    private readonly ScratchDirectory _work = new("kafkaprotobuf-package-tests-");

    public PackedPackages()
    {
        Version = "0.0.0-ci." + DateTime.UtcNow.ToString("yyyyMMddHHmmssfff", CultureInfo.InvariantCulture);
        Feed = Path.Combine(WorkDirectory, "feed");
        try
        {
            // As a release is packed (eng/pack.sh): validated against the last release, rebuilt from its commit. This test
            // project references every package (without their assemblies), so every target framework is built by now and
            // the script packs without building, side by side, racing nothing.
            (int exit, string output) = DotNet.Run("bash", $"eng/pack.sh \"{Feed}\" {Version} --no-build", DotNet.RepositoryRoot, TimeSpan.FromMinutes(20));
            if (exit != 0)
            {
                throw new InvalidOperationException("eng/pack.sh exited with " + exit + " (the release's commit must be in this clone's history; a shallow clone lacks it):\n" + output);
            }
        }
        catch
        {
            _work.Dispose(); // xunit disposes no fixture whose constructor threw
            throw;
        }
    }

    public string Version { get; }

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

    public void Dispose() => _work.Dispose();
}
