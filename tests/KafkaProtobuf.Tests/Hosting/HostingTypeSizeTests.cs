using System;
using System.IO;
using System.Linq;
using KafkaProtobuf.Tests.Support;
using Xunit;

namespace KafkaProtobuf.Tests.Hosting;

/// <summary>
/// Every feature of the hosted consumer once landed in one class, which reached 1,085 lines: no Hosting type may grow
/// past <see cref="MostLines"/> lines, a partial type's files counted together, so that the next feature needs a part
/// of its own; and no line past <see cref="MostCharacters"/> characters, so that a type is not held under its size by
/// joining lines.
/// </summary>
public sealed class HostingTypeSizeTests
{
    private const int MostLines = 300;
    private const int MostCharacters = 140;

    [Fact]
    public void NoHostingType_IsLongerThan300Lines()
    {
        string source = Path.Combine(RepositoryRoot.Path, "src", "KafkaProtobuf.Hosting");
        var types = Directory.GetFiles(source, "*.cs", SearchOption.AllDirectories)
            .Where(file => !IsBuildOutput(source, file))
            .GroupBy(TypeOf, StringComparer.Ordinal) // Name.cs and its partial files Name.Part.cs
            .Select(type => (Type: type.Key, Lines: type.Sum(file => File.ReadAllLines(file).Length)))
            .ToArray();

        Assert.Contains(types, t => t.Type.EndsWith("PartitionScheduler", StringComparison.Ordinal)); // the walk found the sources
        Assert.Empty(types.Where(t => t.Lines > MostLines).Select(t => $"{t.Type}: {t.Lines} lines"));
    }

    [Fact]
    public void NoHostingLine_IsLongerThan140Characters()
    {
        string source = Path.Combine(RepositoryRoot.Path, "src", "KafkaProtobuf.Hosting");
        string[] files = Directory.GetFiles(source, "*.cs", SearchOption.AllDirectories).Where(file => !IsBuildOutput(source, file)).ToArray();
        var longLines = files
            .SelectMany(file => File.ReadAllLines(file).Select((line, index) => (File: Path.GetRelativePath(source, file), Number: index + 1, line.Length)))
            .Where(line => line.Length > MostCharacters)
            .Select(line => $"{line.File}:{line.Number}: {line.Length} characters")
            .ToArray();

        Assert.Contains(files, file => file.EndsWith("PartitionScheduler.cs", StringComparison.Ordinal)); // the walk found the sources
        Assert.Empty(longLines);
    }

    private static bool IsBuildOutput(string source, string file)
    {
        string relative = Path.GetRelativePath(source, file).Replace('\\', '/');
        return relative.StartsWith("obj/", StringComparison.Ordinal) || relative.StartsWith("bin/", StringComparison.Ordinal);
    }

    private static string TypeOf(string file)
    {
        string name = Path.GetFileName(file);
        return Path.Combine(Path.GetDirectoryName(file)!, name[..name.IndexOf('.', StringComparison.Ordinal)]);
    }
}
