using System;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using System.Threading.Tasks;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tests.Shared;
using Xunit;

namespace KafkaProtobuf.PackageTests;

/// <summary>
/// KafkaProtobuf.Build in a project's real <c>dotnet build</c>, restored from the packed package beside Grpc.Tools:
/// no baseline, no check; the baseline written by its target; an unchanged build skips the check as up to date; an
/// incompatible edit fails the build at the changed field's file, line and column; warn-only passes with a warning; a
/// compatible edit passes; the register target registers the subjects, imports first.
/// </summary>
[Collection(PackedPackagesShared.Name)]
public sealed class SchemaBuildTests(PackedPackages packages)
{
    private static readonly TimeSpan BuildTimeout = TimeSpan.FromMinutes(5);

    [Fact]
    public void AProjectsBuild_ChecksItsProtoFilesAgainstTheCommittedBaseline_AtTheChangedLine()
    {
        string project = CreateProject("schema-build-check");
        string orders = Path.Combine(project, "Protos", "shop", "v1", "orders.proto");

        // No baseline yet: the build passes and nothing is checked.
        (int first, string firstOutput) = Build(project, "-v:n");
        Assert.True(first == 0, firstOutput);
        Assert.DoesNotContain("kafkaprotobuf-schemas.pb", firstOutput, StringComparison.Ordinal);

        string written = DotNet.Dotnet("build -t:KafkaProtobufWriteSchemaBaseline -nologo", project, BuildTimeout);
        Assert.Contains("recorded orders-value (shop/v1/orders.proto, BACKWARD) in orders-value.json", written, StringComparison.Ordinal);
        Assert.True(File.Exists(Path.Combine(project, "schemas", "orders-value.json")));

        (int checkedBuild, string checkedOutput) = Build(project, "-v:n");
        Assert.True(checkedBuild == 0, checkedOutput);
        Assert.Contains("kafkaprotobuf-schemas.checked", checkedOutput, StringComparison.Ordinal);

        (int again, string againOutput) = Build(project, "-v:n");
        Assert.True(again == 0, againOutput);
        Assert.Contains("Skipping target \"KafkaProtobufCheckSchemas\" because all output files are up-to-date", againOutput, StringComparison.Ordinal);

        Edit(orders, "    int32 quantity = 2;", "    string quantity = 2;");
        (int broken, string brokenOutput) = Build(project);
        Assert.NotEqual(0, broken);
        Assert.Matches(new Regex("^" + Regex.Escape(orders) + @"\(20,5\): error KPS1013: FIELD_SCALAR_KIND_CHANGED #/OrderPlaced/Line/2: .* \[", RegexOptions.Multiline), brokenOutput);

        (int warned, string warnedOutput) = Build(project, "-p:KafkaProtobufSchemaWarnOnly=true");
        Assert.True(warned == 0, warnedOutput);
        Assert.Contains(orders + "(20,5): warning KPS1013: ", warnedOutput, StringComparison.Ordinal);

        // Other settings check again: the warn-only pass is not taken as up to date for a strict build.
        (int strictAgain, string strictOutput) = Build(project);
        Assert.NotEqual(0, strictAgain);
        Assert.Contains(orders + "(20,5): error KPS1013: ", strictOutput, StringComparison.Ordinal);

        // The break accepted: written to the suppressions file, after which strict builds pass.
        (int accepted, string acceptedOutput) = Build(project, "-p:KafkaProtobufSchemaWriteSuppressions=true");
        Assert.True(accepted == 0, acceptedOutput);
        string suppressions = File.ReadAllText(Path.Combine(project, "SchemaCompatibilitySuppressions.xml"));
        Assert.Contains("<Path>#/OrderPlaced/Line/2</Path>", suppressions, StringComparison.Ordinal);
        (int suppressed, string suppressedOutput) = Build(project);
        Assert.True(suppressed == 0, suppressedOutput);
        File.Delete(Path.Combine(project, "SchemaCompatibilitySuppressions.xml"));

        Edit(orders, "    string quantity = 2;", "    int32 quantity = 2;\n    string note = 3;");
        (int compatible, string compatibleOutput) = Build(project);
        Assert.True(compatible == 0, compatibleOutput);
        Assert.DoesNotContain("KPS", compatibleOutput, StringComparison.Ordinal);
    }

    [Fact]
    public async Task TheRegisterTarget_RegistersEachNamedFile_ImportsFirst_AndIsNoPartOfAPlainBuild()
    {
        string project = CreateProject("schema-build-register");
        using var registry = InProcessSchemaRegistry.Start();
        using var client = new RegistryClient(registry.Url);

        (int built, string builtOutput) = Build(project);
        Assert.True(built == 0, builtOutput);
        Assert.Empty(await client.GetSubjectsAsync());

        (int missingUrl, string missingOutput) = DotNet.Run("dotnet", "build -t:KafkaProtobufRegisterSchemas -nologo", project, BuildTimeout);
        Assert.NotEqual(0, missingUrl);
        Assert.Contains("error KPS0003: Set KafkaProtobufSchemaRegistryUrl", missingOutput, StringComparison.Ordinal);

        string output = DotNet.Dotnet($"build -t:KafkaProtobufRegisterSchemas -p:KafkaProtobufSchemaRegistryUrl={registry.Url} -nologo", project, BuildTimeout);
        Assert.Contains("registered shop/v1/common.proto under shop/v1/common.proto: id ", output, StringComparison.Ordinal);
        Assert.Contains("registered shop/v1/orders.proto under orders-value: id ", output, StringComparison.Ordinal);
        Assert.Equal(["orders-value", "shop/v1/common.proto"], (await client.GetSubjectsAsync()).Order(StringComparer.Ordinal));

        // A change the registry refuses, checked against the registry's versions (CI): an error at its line.
        DotNet.Dotnet("build -t:KafkaProtobufWriteSchemaBaseline -nologo", project, BuildTimeout);
        Edit(Path.Combine(project, "Protos", "shop", "v1", "orders.proto"), "  string reason = 2;", "  int64 reason = 2;");
        int asked = registry.RequestCount("/subjects/orders-value/versions");
        (int checkedAgainstRegistry, string registryOutput) = Build(project, $"-p:KafkaProtobufSchemaCheckRegistry=true -p:KafkaProtobufSchemaRegistryUrl={registry.Url}");
        Assert.NotEqual(0, checkedAgainstRegistry);
        Assert.Contains("orders.proto(37,3): error KPS1013: FIELD_SCALAR_KIND_CHANGED #/OrderCancelled/2: ", registryOutput, StringComparison.Ordinal);
        Assert.True(registry.RequestCount("/subjects/orders-value/versions") > asked, "the registry was not asked");
    }

    /// <summary>A project compiling the registry tests' two .proto files with Grpc.Tools, orders.proto named for the topic orders.</summary>
    private string CreateProject(string name)
    {
        string project = Directory.CreateDirectory(Path.Combine(packages.WorkDirectory, name)).FullName;
        string source = Path.Combine(DotNet.RepositoryRoot, "tests", "KafkaProtobuf.Tests", "RegistryProtos", "writer");
        foreach (string file in Directory.EnumerateFiles(source, "*.proto", SearchOption.AllDirectories))
        {
            string target = Path.Combine(project, "Protos", Path.GetRelativePath(source, file));
            Directory.CreateDirectory(Path.GetDirectoryName(target)!);
            File.Copy(file, target);
        }

        File.WriteAllText(Path.Combine(project, "Schemas.csproj"), $"""
            <Project Sdk="Microsoft.NET.Sdk">
              <PropertyGroup>
                <TargetFramework>net10.0</TargetFramework>
              </PropertyGroup>
              <ItemGroup>
                <PackageReference Include="Google.Protobuf" Version="3.36.2" />
                <PackageReference Include="Grpc.Tools" Version="2.85.0" PrivateAssets="all" />
                <PackageReference Include="KafkaProtobuf.Build" Version="{packages.Version}" PrivateAssets="all" />
                <Protobuf Include="Protos/**/*.proto" ProtoRoot="Protos" GrpcServices="None" />
                <Protobuf Update="Protos/shop/v1/orders.proto" KafkaProtobufTopic="orders" />
              </ItemGroup>
            </Project>
            """);
        packages.AddFeedTo(project);
        return project;
    }

    private static (int Exit, string Output) Build(string project, string arguments = "") =>
        DotNet.Run("dotnet", "build -nologo " + arguments, project, BuildTimeout);

    private static void Edit(string path, string before, string after)
    {
        string text = File.ReadAllText(path);
        Assert.Contains(before, text, StringComparison.Ordinal);
        File.WriteAllText(path, text.Replace(before, after, StringComparison.Ordinal));
    }
}
