using System;
using System.IO;
using Confluent.Kafka;
using KafkaProtobuf.Tests.Shared;
using KafkaProtobuf.Testing;
using Xunit;

namespace KafkaProtobuf.PackageTests;

/// <summary>
/// Each package restored alone, in a project with no other reference, as a new user's first project would: NuGet then
/// resolves the lowest versions the package declares (Confluent.Kafka 2.15.1 and the librdkafka.redist it asks for), and
/// the program uses the package against them. A floor set lower than what the package needs fails here: KafkaProtobuf.Testing
/// on Confluent.Kafka 1.9.3 resolved a librdkafka it could not load (or, where 1.9.2 is served, one without its mock functions).
/// </summary>
[Collection(PackedPackagesShared.Name)]
public sealed class PackageAloneTests(PackedPackages packages)
{
    [Theory]
    [InlineData("KafkaProtobuf")]                 // the serializer writes a record, the deserializer reads it
    [InlineData("KafkaProtobuf.SchemaRegistry")]  // registered on the first record, read by name
    [InlineData("KafkaProtobuf.Hosting")]         // a hosted consumer reads one
    [InlineData("KafkaProtobuf.Streamiz")]        // the serdes frames one through the registry and reads it back
    [InlineData("KafkaProtobuf.Testing")]         // the embedded cluster starts, takes a fault and carries a record
    [InlineData("KafkaProtobuf.Aspire")]          // by connection strings: registered, written, read by a hosted consumer; healthy
    [InlineData("KafkaProtobuf.Aspire.Hosting")]  // an AppHost's model with both resources builds; the cluster carries a record
    [InlineData("KafkaProtobuf.AspNetCore")]      // the operations page lists a hosted consumer and its dead letter
    [InlineData("KafkaProtobuf.Wolverine")]       // a message published through the registry is read back into its handler
    public void APackageAlone_ResolvesItsDeclaredFloors_AndWorksOnThem(string package)
    {
        string project = Directory.CreateDirectory(Path.Combine(packages.WorkDirectory, "alone-" + package)).FullName;
        // The Web SDK for Hosting: its shared framework brings the generic host, as a service's project has it.
        string sdk = package is "KafkaProtobuf.Hosting" or "KafkaProtobuf.Aspire" or "KafkaProtobuf.AspNetCore" ? "Microsoft.NET.Sdk.Web" : "Microsoft.NET.Sdk";
        // A Wolverine application compiles its handlers at run time: Wolverine's compiler is its second reference.
        string extra = package is "KafkaProtobuf.Wolverine" ? "\n    <PackageReference Include=\"WolverineFx.RuntimeCompilation\" Version=\"6.62.0\" />" : string.Empty;
        File.WriteAllText(Path.Combine(project, "Alone.csproj"), $"""
            <Project Sdk="{sdk}">
              <PropertyGroup>
                <OutputType>Exe</OutputType>
                <TargetFramework>net10.0</TargetFramework>
                <Nullable>enable</Nullable>
                <ImplicitUsings>enable</ImplicitUsings>
              </PropertyGroup>
              <ItemGroup>
                <PackageReference Include="{package}" Version="{packages.Version}" />{extra}
              </ItemGroup>
            </Project>
            """);
        File.Copy(Path.Combine(AppContext.BaseDirectory, "AloneTemplates", package, "Program.cs"), Path.Combine(project, "Program.cs"));
        packages.AddFeedTo(project);

        using var cluster = EmbeddedKafkaCluster.Start();
        cluster.CreateTopic("alone", 1);
        cluster.CreateTopic("alone.dlq", 1); // the operations page's template dead-letters a record
        using var registry = InProcessSchemaRegistry.Start();
        string output = DotNet.Dotnet($"run -c Release -- {cluster.BootstrapServers} alone {registry.Url}", project, TimeSpan.FromMinutes(5));

        Assert.Contains("alone: OK", output, StringComparison.Ordinal);
        string assets = File.ReadAllText(Path.Combine(project, "obj", "project.assets.json"));
        Assert.Contains("\"Confluent.Kafka/2.15.1\"", assets, StringComparison.Ordinal);
        Assert.Contains("\"librdkafka.redist/2.15.1\"", assets, StringComparison.Ordinal);
        Assert.Contains($"\"{package}/{packages.Version}\"", assets, StringComparison.Ordinal);
    }
}
