using System;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using KafkaProtobuf.Tests.Shared;
using Xunit;

namespace KafkaProtobuf.PackageTests;

/// <summary>
/// The documentation site (docfx, a local .NET tool): the API reference from the packages' XML docs plus the pages of
/// docs/, built with warnings as errors, so a broken link, an unresolved cross reference or an API page docfx cannot
/// build fails CI; and no page of docs/ is left out of its table of contents. In the packages' collection: docfx loads
/// the packages' projects, which must not race their packing.
/// </summary>
[Collection(PackedPackagesShared.Name)]
public sealed partial class DocumentationSiteTests : IDisposable
{
    private readonly ScratchDirectory _scratch = new("kafkaprotobuf-docs-");

    private string Work => _scratch.Path;

    public void Dispose() => _scratch.Dispose();

    [Fact]
    public void TheSite_BuildsWithWarningsAsErrors_ApiReferenceIncluded()
    {
        string root = DotNet.RepositoryRoot;
        DotNet.Dotnet("tool restore", root, TimeSpan.FromMinutes(3));
        string site = Path.Combine(Work, "site");
        string output = DotNet.Dotnet($"docfx docfx.json --warningsAsErrors -o \"{site}\"", root, TimeSpan.FromMinutes(10));

        Assert.Contains("0 warning(s)", output, StringComparison.Ordinal);
        foreach (string page in new[] { "docs/options.html", "docs/errors.html", "docs/metrics.html", "docs/tool.html", "docs/versioning.html", "README.html" })
        {
            Assert.True(File.Exists(Path.Combine(site, page)), $"{page} is not in the site");
        }

        // A type of each package has its API page, built from its XML docs.
        string api = Path.Combine(site, "docs", "api");
        foreach (string type in new[] { "KafkaProtobuf.FramedProtobufDeserializer-1", "KafkaProtobuf.SchemaRegistry.RegistryClient", "KafkaProtobuf.Hosting.KafkaProtobufConsumerOptions", "KafkaProtobuf.Streamiz.RegistryProtobufSerDes-1", "KafkaProtobuf.Testing.EmbeddedKafkaCluster", "KafkaProtobuf.Aspire.KafkaProtobufConsumerSettings", "KafkaProtobuf.Aspire.Hosting.EmbeddedKafkaResource", "KafkaProtobuf.AspNetCore.KafkaProtobufOperationsOptions", "KafkaProtobuf.Wolverine.KafkaProtobufWolverineExtensions" })
        {
            Assert.True(File.Exists(Path.Combine(api, type + ".html")), $"no API page for {type}");
        }
    }

    [Fact]
    public void ABrokenLinkOrAnUnresolvedReference_FailsTheSiteBuild()
    {
        // The same build settings on a page of its own, with one broken link and one reference to no API.
        File.WriteAllText(Path.Combine(Work, "docfx.json"), """
            { "build": { "content": [ { "files": [ "*.md", "toc.yml" ] } ], "output": "site" } }
            """);
        File.WriteAllText(Path.Combine(Work, "toc.yml"), "- name: Page\n  href: page.md\n");
        File.WriteAllText(Path.Combine(Work, "page.md"), "# Page\n\nSee [the options](options.md) and <xref:KafkaProtobuf.NoSuchType>.\n");
        DotNet.Dotnet("tool restore", DotNet.RepositoryRoot, TimeSpan.FromMinutes(3));

        (int exit, string output) = DotNet.Run(
            "dotnet", $"tool run docfx \"{Path.Combine(Work, "docfx.json")}\" --warningsAsErrors", DotNet.RepositoryRoot, TimeSpan.FromMinutes(5));

        Assert.NotEqual(0, exit);
        Assert.Contains("InvalidFileLink", output, StringComparison.Ordinal);
        Assert.Contains("UidNotFound", output, StringComparison.Ordinal);
    }

    [Fact]
    public void EveryPageOfDocs_IsInTheTableOfContents()
    {
        string root = DotNet.RepositoryRoot;
        string[] listed = Href().Matches(File.ReadAllText(Path.Combine(root, "toc.yml"))).Select(m => m.Groups[1].Value.Trim()).ToArray();
        string[] pages = Directory.GetFiles(Path.Combine(root, "docs"), "*.md").Select(f => "docs/" + Path.GetFileName(f)).ToArray();

        Assert.NotEmpty(pages);
        Assert.Empty(pages.Except(listed));
        Assert.DoesNotContain(listed, l => l.EndsWith(".md", StringComparison.Ordinal) && !File.Exists(Path.Combine(root, l)));
    }

    [GeneratedRegex(@"href:\s*(\S+)")]
    private static partial Regex Href();
}
