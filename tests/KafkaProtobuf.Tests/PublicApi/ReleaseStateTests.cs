using System;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using Xunit;

namespace KafkaProtobuf.Tests.PublicApi;

/// <summary>
/// A released version is what its files say: the version built is the CHANGELOG's newest release, and every member of
/// its API is in PublicAPI.Shipped.txt (nothing left unshipped). While a release is being prepared the CHANGELOG's top
/// section is "[Unreleased]" and new members wait in PublicAPI.Unshipped.txt.
/// </summary>
public sealed partial class ReleaseStateTests
{
    private static readonly string Root = Support.RepositoryRoot.Path;

    [Fact]
    public void AReleasedVersion_IsTheChangelogsNewest_AndLeavesNoApiUnshipped()
    {
        string version = VersionPrefix().Match(File.ReadAllText(Path.Combine(Root, "Directory.Build.props"))).Groups[1].Value;
        Match newest = Heading().Match(File.ReadAllText(Path.Combine(Root, "CHANGELOG.md")));
        Assert.True(newest.Success, "CHANGELOG.md has no '## [version]' heading");
        if (newest.Groups[1].Value == "Unreleased")
        {
            return; // between releases: new API may wait in the unshipped files
        }

        Assert.Equal(version, newest.Groups[1].Value);
        Assert.Matches(@"^\d{4}-\d{2}-\d{2}$", newest.Groups[2].Value);
        string[] unshipped = Directory.GetFiles(Path.Combine(Root, "src"), "PublicAPI.Unshipped.txt", SearchOption.AllDirectories);
        Assert.Equal(5, unshipped.Length);
        foreach (string file in unshipped)
        {
            string[] lines = File.ReadAllLines(file).Where(l => l.Trim().Length > 0).ToArray();
            Assert.True(lines is ["#nullable enable"], $"{Path.GetRelativePath(Root, file)} still lists API after release {version}: {string.Join(", ", lines.Skip(1))}");
        }
    }

    [GeneratedRegex(@"<VersionPrefix>([^<]+)</VersionPrefix>")]
    private static partial Regex VersionPrefix();

    [GeneratedRegex(@"^## \[([^\]]+)\](?: - (\S+))?", RegexOptions.Multiline)]
    private static partial Regex Heading();
}
