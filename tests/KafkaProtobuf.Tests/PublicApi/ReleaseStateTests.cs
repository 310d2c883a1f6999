using System;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using Xunit;

namespace KafkaProtobuf.Tests.PublicApi;

/// <summary>
/// The version says what changed (Semantic Versioning: new API is a minor release). While a release is prepared, the
/// CHANGELOG's top section is "[Unreleased]", new members wait in PublicAPI.Unshipped.txt, and the version built is
/// above the last release's, a minor step at least when API waits. A released version is the CHANGELOG's newest, and
/// every member of its API is in PublicAPI.Shipped.txt. Checked in both states, for every package that has API files.
/// </summary>
public sealed partial class ReleaseStateTests
{
    private static readonly string Root = Support.RepositoryRoot.Path;

    /// <summary>The libraries, each with its API files (the tool has a command line, not an API).</summary>
    private static readonly string[] Libraries =
        ["KafkaProtobuf", "KafkaProtobuf.SchemaRegistry", "KafkaProtobuf.Hosting", "KafkaProtobuf.Streamiz", "KafkaProtobuf.Testing", "KafkaProtobuf.Aspire", "KafkaProtobuf.Aspire.Hosting", "KafkaProtobuf.AspNetCore", "KafkaProtobuf.Wolverine"];

    private static Version Built => Version.Parse(VersionPrefix().Match(File.ReadAllText(Path.Combine(Root, "Directory.Build.props"))).Groups[1].Value);

    private static Match[] Headings => Heading().Matches(File.ReadAllText(Path.Combine(Root, "CHANGELOG.md"))).ToArray();

    private static string[] UnshippedApi(string library) =>
        File.ReadAllLines(Path.Combine(Root, "src", library, "PublicAPI.Unshipped.txt")).Where(l => l.Trim().Length > 0 && l != "#nullable enable").ToArray();

    [Fact]
    public void EveryLibrary_HasItsApiFiles_AndEveryProjectWithApiFilesIsALibraryHere()
    {
        string[] withFiles = Directory.GetFiles(Path.Combine(Root, "src"), "PublicAPI.Unshipped.txt", SearchOption.AllDirectories)
            .Select(f => Path.GetFileName(Path.GetDirectoryName(f)!)).Order(StringComparer.Ordinal).ToArray();
        Assert.Equal(Libraries.Order(StringComparer.Ordinal), withFiles);
        Assert.All(Libraries, l => Assert.True(File.Exists(Path.Combine(Root, "src", l, "PublicAPI.Shipped.txt")), l + " has no PublicAPI.Shipped.txt"));
    }

    [Fact]
    public void WhileApiWaitsUnshipped_TheVersionIsAMinorStepAboveTheLastRelease_AndTheChangelogSaysUnreleased()
    {
        Match lastRelease = Headings.First(h => h.Groups[1].Value != "Unreleased");
        Assert.Matches(@"^\d{4}-\d{2}-\d{2}$", lastRelease.Groups[2].Value);
        var released = Version.Parse(lastRelease.Groups[1].Value);
        string[] waiting = Libraries.Where(l => UnshippedApi(l).Length > 0).ToArray();
        if (waiting.Length == 0)
        {
            return; // nothing new: a patch may follow the release
        }

        Assert.True(
            Built.Major > released.Major || (Built.Major == released.Major && Built.Minor > released.Minor),
            $"API waits unshipped in {string.Join(", ", waiting)}, but the version built, {Built}, is not a minor release above {released}: new API is a minor version (docs/versioning.md)");
        Assert.Equal("Unreleased", Headings[0].Groups[1].Value);
    }

    [Fact]
    public void AReleasedVersion_IsTheChangelogsNewest_AndLeavesNoApiUnshipped()
    {
        Match newest = Headings.First();
        if (newest.Groups[1].Value == "Unreleased")
        {
            // Being prepared: the release to come is above the last one (the test above holds it to a minor step when API waits).
            Assert.True(Built > Version.Parse(Headings.First(h => h.Groups[1].Value != "Unreleased").Groups[1].Value), $"{Built} is the version being prepared, but not above the last release");
            return;
        }

        Assert.Equal(Built, Version.Parse(newest.Groups[1].Value));
        Assert.Matches(@"^\d{4}-\d{2}-\d{2}$", newest.Groups[2].Value);
        Assert.All(Libraries, library => Assert.True(UnshippedApi(library).Length == 0, $"src/{library}/PublicAPI.Unshipped.txt still lists API after release {Built}: {string.Join(", ", UnshippedApi(library))}"));
    }

    /// <summary>
    /// Every unshipped type, and every unshipped member of a type that shipped before, is named (in backticks) in the
    /// CHANGELOG section of the release to come: a reader of the CHANGELOG learns of all that is new, not of most of it.
    /// A member of a new type is covered by its type; overrides (<c>ToString</c>, <c>Equals</c>) need no word.
    /// </summary>
    [Fact]
    public void EveryUnshippedTypeAndMemberOfAShippedType_IsNamedInTheChangelogsUnreleasedSection()
    {
        string changelog = File.ReadAllText(Path.Combine(Root, "CHANGELOG.md"));
        Match[] headings = Headings;
        if (headings[0].Groups[1].Value != "Unreleased")
        {
            return; // released: nothing waits unshipped (the test above holds that)
        }

        string section = changelog.Substring(headings[0].Index, headings[1].Index - headings[0].Index);
        string[] quoted = Quoted().Matches(section).Select(m => m.Groups[1].Value).ToArray();
        bool Named(string name) => quoted.Any(q => Regex.IsMatch(q, @"(^|[^A-Za-z0-9_])" + Regex.Escape(name) + @"($|[^A-Za-z0-9_])"));

        var missing = new System.Collections.Generic.List<string>();
        foreach (string library in Libraries)
        {
            string[] lines = UnshippedApi(library);
            var newTypes = lines.Where(l => !l.Contains(" -> ", StringComparison.Ordinal)).ToHashSet(StringComparer.Ordinal);
            foreach (string type in newTypes)
            {
                string name = type[(type.LastIndexOf('.') + 1)..];
                if (!Named(name))
                {
                    missing.Add(library + ": type " + name);
                }
            }

            foreach (string line in lines.Where(l => l.Contains(" -> ", StringComparison.Ordinal) && !l.StartsWith("override ", StringComparison.Ordinal)))
            {
                string symbol = Regex.Replace(line, @"^(static |const |abstract |virtual |sealed )+", string.Empty);
                symbol = symbol.Split('(', ' ')[0];
                symbol = Regex.Replace(symbol, @"\.(get|set)$", string.Empty);
                int dot = symbol.LastIndexOf('.');
                string containing = symbol[..dot], member = symbol[(dot + 1)..];
                containing = Regex.Replace(containing, "<.*$", string.Empty);
                if (newTypes.Contains(containing) || newTypes.Any(t => t.StartsWith(containing + "<", StringComparison.Ordinal)))
                {
                    continue; // its type is new, and named
                }

                member = Regex.Replace(member, "<.*$", string.Empty);
                if (!Named(member))
                {
                    missing.Add(library + ": " + containing[(containing.LastIndexOf('.') + 1)..] + "." + member);
                }
            }
        }

        Assert.True(missing.Count == 0, "CHANGELOG.md's [Unreleased] does not name: " + string.Join("; ", missing.Distinct()));
    }

    [GeneratedRegex("`([^`]+)`")]
    private static partial Regex Quoted();

    [GeneratedRegex(@"<VersionPrefix>([^<]+)</VersionPrefix>")]
    private static partial Regex VersionPrefix();

    [GeneratedRegex(@"^## \[([^\]]+)\](?: - (\S+))?", RegexOptions.Multiline)]
    private static partial Regex Heading();
}
