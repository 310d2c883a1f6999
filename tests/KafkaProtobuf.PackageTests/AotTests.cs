using System;
using System.IO;
using System.Linq;
using KafkaProtobuf.Tests.Shared;
using Xunit;

namespace KafkaProtobuf.PackageTests;

public class AotTests
{
    [Fact]
    public void AotSample_PublishesWithoutWarningsAndRuns()
    {
        // Native AOT on Linux links with the system's C toolchain; this machine kind has gcc (and clang on some).
        Assert.True(DotNet.IsOnPath("clang") || DotNet.IsOnPath("gcc"), "native AOT needs clang or gcc as its linker");
        string output = Directory.CreateTempSubdirectory("kafkaprotobuf-aot-").FullName;
        try
        {
            string publish = DotNet.Dotnet(
                $"publish samples/KafkaProtobuf.AotSample/KafkaProtobuf.AotSample.csproj -c Release -r linux-x64 -o \"{output}\"",
                DotNet.RepositoryRoot,
                TimeSpan.FromMinutes(8));
            // Confluent.Kafka's own four warnings are known, and protobuf-net's (the .proto parser the Testing package's
            // in-process registry compiles text with; not annotated for trimming): the sample compiles text natively
            // below, which shows the path it takes works. None may come from KafkaProtobuf or Google.Protobuf.
            string[] foreign = publish.Split('\n')
                .Where(line => line.Contains("warning IL", StringComparison.Ordinal)
                    && !line.Contains(": Confluent.Kafka.", StringComparison.Ordinal)
                    && !line.Contains("/protobuf-net.", StringComparison.Ordinal)
                    && !line.Contains(": ProtoBuf.", StringComparison.Ordinal))
                .ToArray();
            Assert.Empty(foreign);

            (int exitCode, string run) = DotNet.Run(Path.Combine(output, "KafkaProtobuf.AotSample"), string.Empty, output, TimeSpan.FromMinutes(1));
            Assert.Equal(0, exitCode);
            Assert.Contains("AOT sample: OK", run, StringComparison.Ordinal);
            Assert.Contains("text schemas: compatible True, incompatible refused True, served serialized True", run, StringComparison.Ordinal);
        }
        finally
        {
            Directory.Delete(output, recursive: true);
        }
    }
}
