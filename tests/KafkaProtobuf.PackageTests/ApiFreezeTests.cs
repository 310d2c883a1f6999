using System;
using System.IO;
using System.Linq;
using KafkaProtobuf.Tests.Shared;
using Xunit;

namespace KafkaProtobuf.PackageTests;

/// <summary>
/// The API shipped in 1.0.0 is held by each package's PublicAPI.Shipped.txt: a shipped member removed, renamed or changed
/// fails the build (RS0017, an error under warnings-as-errors), so no break reaches a package by accident. Shown on a copy
/// of the core package's sources with one shipped member made internal.
/// </summary>
public sealed class ApiFreezeTests : IDisposable
{
    private readonly ScratchDirectory _scratch = new("kafkaprotobuf-api-freeze-");

    private string Copy => _scratch.Path;

    public void Dispose() => _scratch.Dispose();

    [Fact]
    public void AShippedMemberTakenOutOfThePublicApi_FailsTheBuild_NamingTheMember()
    {
        string root = DotNet.RepositoryRoot;
        foreach (string file in new[] { "Directory.Build.props", "Directory.Packages.props", "global.json", ".editorconfig" })
        {
            File.Copy(Path.Combine(root, file), Path.Combine(Copy, file));
        }

        CopyDirectory(Path.Combine(root, "src", "KafkaProtobuf"), Path.Combine(Copy, "src", "KafkaProtobuf"));
        CopyDirectory(Path.Combine(root, "src", "Shared"), Path.Combine(Copy, "src", "Shared"));
        string shipped = File.ReadAllText(Path.Combine(Copy, "src", "KafkaProtobuf", "PublicAPI.Shipped.txt"));
        Assert.Contains("const KafkaProtobuf.Framing.SchemaIdHeaderNames.Key = \"__key_schema_id\" -> string!", shipped, StringComparison.Ordinal);

        string source = Path.Combine(Copy, "src", "KafkaProtobuf", "Framing", "SchemaIdHeaderNames.cs");
        string text = File.ReadAllText(source);
        Assert.Contains("public const string Key = ", text, StringComparison.Ordinal);
        File.WriteAllText(source, text.Replace("public const string Key = ", "internal const string Key = ", StringComparison.Ordinal));

        (int exit, string output) = DotNet.Run(
            "dotnet", "build src/KafkaProtobuf/KafkaProtobuf.csproj -c Release -f net10.0 -p:EnablePackageValidation=false", Copy, TimeSpan.FromMinutes(5));

        Assert.NotEqual(0, exit);
        Assert.Contains(
            output.Split('\n'),
            line => line.Contains("error RS0017", StringComparison.Ordinal) && line.Contains("SchemaIdHeaderNames.Key", StringComparison.Ordinal));
    }

    private static void CopyDirectory(string from, string to)
    {
        foreach (string file in Directory.EnumerateFiles(from, "*", SearchOption.AllDirectories))
        {
            string relative = Path.GetRelativePath(from, file);
            if (relative.Split(Path.DirectorySeparatorChar).Any(part => part is "bin" or "obj"))
            {
                continue;
            }

            string target = Path.Combine(to, relative);
            Directory.CreateDirectory(Path.GetDirectoryName(target)!);
            File.Copy(file, target);
        }
    }
}
