using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using KafkaProtobuf.Tests.Support;
using Xunit;

namespace KafkaProtobuf.Tests.Docs;

/// <summary>docs/architecture.md's table of packages says what their project files say: every package, what it depends on here, what source it compiles in.</summary>
public sealed class ArchitectureDocTests
{
    [Fact]
    public void ThePackageTable_NamesEveryPackage_ItsDependenciesAndTheSourceItCompilesIn_AsTheProjectFilesDo()
    {
        Dictionary<string, string> documented = DocumentedRows();
        Dictionary<string, string> actual = Directory.GetFiles(Path.Combine(RepositoryRoot.Path, "src"), "*.csproj", SearchOption.AllDirectories)
            .ToDictionary(p => Path.GetFileNameWithoutExtension(p), p => RowOf(File.ReadAllText(p)), StringComparer.Ordinal);

        Assert.Equal(actual.Keys.Order(StringComparer.Ordinal), documented.Keys.Order(StringComparer.Ordinal));
        foreach ((string package, string row) in actual)
        {
            Assert.True(row == documented[package], package + ": the project file says '" + row + "', docs/architecture.md '" + documented[package] + "'");
        }
    }

    /// <summary>A project's row, as the table writes it: its project references, then the files it compiles from other folders (by type name).</summary>
    private static string RowOf(string project)
    {
        string[] dependencies = Regex.Matches(project, "ProjectReference Include=\"([^\"]+)\"")
            .Select(m => Path.GetFileNameWithoutExtension(m.Groups[1].Value)).ToArray();
        string[] compiledIn = Regex.Matches(project, "Compile Include=\"\\.\\./([^\"]+)\"")
            .Select(m => Path.GetFileNameWithoutExtension(m.Groups[1].Value)).Distinct().Order(StringComparer.Ordinal).ToArray();
        return (dependencies.Length == 0 ? "—" : string.Join(", ", dependencies.Order(StringComparer.Ordinal)))
            + " | " + (compiledIn.Length == 0 ? "—" : string.Join(", ", compiledIn.Select(c => "`" + c + "`")));
    }

    private static Dictionary<string, string> DocumentedRows()
    {
        string[] lines = File.ReadAllLines(Path.Combine(RepositoryRoot.Path, "docs", "architecture.md"));
        int header = Array.FindIndex(lines, l => l.StartsWith("| Package | Depends on | Source compiled in |", StringComparison.Ordinal));
        Assert.True(header >= 0, "docs/architecture.md has no table of packages");
        var rows = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (string line in lines.Skip(header + 2).TakeWhile(l => l.StartsWith('|')))
        {
            string[] cells = line.Trim('|').Split('|').Select(c => c.Trim()).ToArray();
            string dependencies = string.Join(", ", cells[1].Split(", ").Order(StringComparer.Ordinal));
            rows.Add(cells[0], dependencies + " | " + cells[2]);
        }

        return rows;
    }
}
