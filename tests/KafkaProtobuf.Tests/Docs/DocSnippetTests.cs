using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Text.RegularExpressions;
using KafkaProtobuf.Diagnostics;
using Xunit;

namespace KafkaProtobuf.Tests.Docs;

/// <summary>
/// The docs cannot drift from the code: every C# block of the README, docs/ and the package readmes is a region of a
/// compiled file in Docs/Snippets (marked <c>&lt;!-- snippet: name --&gt;</c> and shown to the letter), and every error
/// code, metric instrument and option is documented.
/// </summary>
public sealed partial class DocSnippetTests
{
    private static readonly string Root = Support.RepositoryRoot.Path;

    public static IEnumerable<object[]> Documents() =>
        Directory.GetFiles(Root, "README.md").Select(f => Path.GetRelativePath(Root, f))
            .Concat(Directory.GetFiles(Path.Combine(Root, "docs"), "*.md").Select(f => Path.GetRelativePath(Root, f)))
            .Concat(Directory.GetFiles(Path.Combine(Root, "src"), "README.md", SearchOption.AllDirectories).Select(f => Path.GetRelativePath(Root, f)))
            .Select(f => new object[] { f.Replace('\\', '/') });

    [Theory]
    [MemberData(nameof(Documents))]
    public void EveryCSharpBlock_IsACompiledSnippet_ShownToTheLetter(string document)
    {
        string text = File.ReadAllText(Path.Combine(Root, document)).Replace("\r\n", "\n", StringComparison.Ordinal);
        Dictionary<string, string> regions = Regions();
        foreach (Match block in CSharpBlock().Matches(text))
        {
            string before = text[..block.Index].TrimEnd('\n');
            Match marker = SnippetMarker().Match(before[(before.LastIndexOf('\n') + 1)..]);
            Assert.True(marker.Success, $"{document}: a csharp block at character {block.Index} has no <!-- snippet: name --> line before it");
            string name = marker.Groups[1].Value;
            Assert.True(regions.TryGetValue(name, out string? code), $"{document}: no region '{name}' in tests/KafkaProtobuf.Tests/Docs/Snippets, tests/KafkaProtobuf.Aspire.Tests/Snippets, tests/KafkaProtobuf.AspNetCore.Tests/Snippets or tests/KafkaProtobuf.Wolverine.Tests/Snippets");
            Assert.True(code == block.Groups[1].Value.TrimEnd('\n'), $"{document}: snippet '{name}' differs from its compiled region; it should read:\n{code}");
        }
    }

    [Fact]
    public void EveryErrorCode_IsInTheErrorsTable()
    {
        string errors = File.ReadAllText(Path.Combine(Root, "docs", "errors.md"));
        foreach (FrameErrorCode code in Enum.GetValues<FrameErrorCode>().Where(c => c != FrameErrorCode.None))
        {
            Assert.Contains($"| `{code}` | {(int)code} |", errors, StringComparison.Ordinal);
        }
    }

    [Fact]
    public void EveryMetricInstrument_IsInTheMetricsTable()
    {
        string metrics = File.ReadAllText(Path.Combine(Root, "docs", "metrics.md"));
        IEnumerable<string> instruments = typeof(KafkaProtobufMetrics).GetFields(BindingFlags.Public | BindingFlags.Static)
            .Concat(typeof(KafkaProtobuf.Hosting.KafkaProtobufConsumerMetrics).GetFields(BindingFlags.Public | BindingFlags.Static))
            .Where(f => f.IsLiteral && ((string)f.GetRawConstantValue()!).StartsWith("kafkaprotobuf.", StringComparison.Ordinal))
            .Select(f => (string)f.GetRawConstantValue()!);
        Assert.NotEmpty(instruments);
        Assert.All(instruments, name => Assert.Contains($"| `{name}` |", metrics, StringComparison.Ordinal));
    }

    [Fact]
    public void EveryOption_IsInTheOptionsPage_UnderItsType()
    {
        string options = File.ReadAllText(Path.Combine(Root, "docs", "options.md")).Replace("\r\n", "\n", StringComparison.Ordinal);
        Type[] types =
        [
            typeof(FramedDeserializerOptions), typeof(MultiTypeDeserializerOptions), typeof(FramingOptions), typeof(WriterSchemaOptions), typeof(KafkaProtobuf.Decoding.WriterSchemaDecoderOptions),
            typeof(FramedSerializerOptions), typeof(SchemaRegistry.RegistrySerializerOptions), typeof(SchemaRegistry.RegistryClientOptions),
            typeof(KafkaProtobuf.Hosting.KafkaProtobufConsumerOptions), typeof(KafkaProtobuf.Hosting.HandlerFailureOptions),
        ];
        foreach (Type type in types)
        {
            int heading = options.IndexOf("\n## `" + type.Name + "`\n", StringComparison.Ordinal);
            Assert.True(heading >= 0, "docs/options.md has no section for " + type.Name);
            int next = options.IndexOf("\n## ", heading + 1, StringComparison.Ordinal);
            string section = next < 0 ? options[heading..] : options[heading..next];
            foreach (PropertyInfo property in type.GetProperties(BindingFlags.Public | BindingFlags.Instance))
            {
                Assert.True(section.Contains($"| `{property.Name}` |", StringComparison.Ordinal), $"docs/options.md: {type.Name}.{property.Name} is not in its table");
            }
        }
    }

    /// <summary>Every <c>#region name</c> of the snippet files, its lines dedented.</summary>
    private static Dictionary<string, string> Regions()
    {
        var regions = new Dictionary<string, string>(StringComparer.Ordinal);
        // The Aspire integrations', the operations page's and Wolverine's snippets compile in their own test projects
        // (they reference the AppHost packages, ASP.NET Core, Wolverine).
        foreach (string file in Directory.GetFiles(Path.Combine(Root, "tests", "KafkaProtobuf.Tests", "Docs", "Snippets"), "*.cs")
            .Concat(Directory.GetFiles(Path.Combine(Root, "tests", "KafkaProtobuf.Aspire.Tests", "Snippets"), "*.cs"))
            .Concat(Directory.GetFiles(Path.Combine(Root, "tests", "KafkaProtobuf.AspNetCore.Tests", "Snippets"), "*.cs"))
            .Concat(Directory.GetFiles(Path.Combine(Root, "tests", "KafkaProtobuf.Wolverine.Tests", "Snippets"), "*.cs")))
        {
            string[] lines = File.ReadAllText(file).Replace("\r\n", "\n", StringComparison.Ordinal).Split('\n');
            for (int i = 0; i < lines.Length; i++)
            {
                Match start = RegionStart().Match(lines[i]);
                if (!start.Success)
                {
                    continue;
                }

                int end = Array.FindIndex(lines, i + 1, l => l.Trim() == "#endregion");
                string[] body = lines[(i + 1)..end];
                int indent = body.Where(l => l.Trim().Length > 0).Min(l => l.Length - l.TrimStart().Length);
                regions.Add(start.Groups[1].Value, string.Join('\n', body.Select(l => l.Length >= indent ? l[indent..] : l.Trim())).TrimEnd('\n'));
            }
        }

        return regions;
    }

    [Theory]
    [InlineData("KafkaProtobuf", "dotnet add package KafkaProtobuf")]
    [InlineData("KafkaProtobuf.SchemaRegistry", "dotnet add package KafkaProtobuf.SchemaRegistry")]
    [InlineData("KafkaProtobuf.Hosting", "dotnet add package KafkaProtobuf.Hosting")]
    [InlineData("KafkaProtobuf.Streamiz", "dotnet add package KafkaProtobuf.Streamiz")]
    [InlineData("KafkaProtobuf.Testing", "dotnet add package KafkaProtobuf.Testing")]
    [InlineData("KafkaProtobuf.Aspire", "dotnet add package KafkaProtobuf.Aspire")]
    [InlineData("KafkaProtobuf.Aspire.Hosting", "dotnet add package KafkaProtobuf.Aspire.Hosting")]
    [InlineData("KafkaProtobuf.AspNetCore", "dotnet add package KafkaProtobuf.AspNetCore")]
    [InlineData("KafkaProtobuf.Tool", "dotnet tool install -g KafkaProtobuf.Tool")]
    public void EachPackageReadme_StartsWithAQuickStart_InstallThenCode(string package, string install)
    {
        string[] lines = File.ReadAllText(Path.Combine(Root, "src", package, "README.md")).Replace("\r\n", "\n", StringComparison.Ordinal).Split('\n');
        Assert.StartsWith("# ", lines[0], StringComparison.Ordinal);
        Assert.Equal("## Quick start", lines.Skip(1).First(l => l.Trim().Length > 0));
        string[] quickStart = lines.SkipWhile(l => l != "## Quick start").Skip(1).TakeWhile(l => !l.StartsWith("## ", StringComparison.Ordinal)).ToArray();
        Assert.Equal(install, quickStart.SkipWhile(l => l != "```bash").Skip(1).First());
        if (package != "KafkaProtobuf.Tool")
        {
            // a compiled snippet (EveryCSharpBlock_IsACompiledSnippet_ShownToTheLetter checks it to the letter)
            Assert.Contains(quickStart, l => SnippetMarker().IsMatch(l));
        }
    }

    [GeneratedRegex("```csharp\n(.*?)```", RegexOptions.Singleline)]
    private static partial Regex CSharpBlock();

    [GeneratedRegex(@"^<!-- snippet: ([\w-]+) -->$")]
    private static partial Regex SnippetMarker();

    [GeneratedRegex(@"^\s*#region ([\w-]+)\s*$")]
    private static partial Regex RegionStart();
}
