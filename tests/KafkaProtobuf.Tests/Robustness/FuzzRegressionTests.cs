using System;
using System.IO;
using System.Linq;
using KafkaProtobuf.Framing;
using KafkaProtobuf.Fuzz;
using Xunit;

namespace KafkaProtobuf.Tests.Robustness;

/// <summary>Every input the fuzzer ever flagged, replayed through the fuzzer's own checks (fuzz/KafkaProtobuf.Fuzz/Harness.cs).</summary>
public class FuzzRegressionTests
{
    public static TheoryData<string> Findings()
    {
        var data = new TheoryData<string>();
        foreach (string file in Directory.GetFiles(Path.Combine(AppContext.BaseDirectory, "FuzzRegressions"), "*.bin").Order())
        {
            if (Harness.Targets.Contains(Path.GetFileName(file).Split('-')[0])) // the tool's and the registry's: ToolAndRegistryFuzzRegressionTests
            {
                data.Add(Path.GetFileName(file));
            }
        }

        return data;
    }

    [Fact]
    public void TheFindingsAreThere() => Assert.True(Findings().Count >= 10);

    [Theory]
    [MemberData(nameof(Findings))]
    public void Finding_NowPassesTheHarnessChecks(string file)
    {
        string target = file.Split('-')[0];
        Assert.Contains(target, Harness.Targets);
        Harness.Check(target, File.ReadAllBytes(Path.Combine(AppContext.BaseDirectory, "FuzzRegressions", file)));
    }

    [Fact]
    public void TheHarnessesAllocationCheck_FlagsARunPastItsBound_AndOnlyThat()
    {
        // 128 KiB plus 4 KiB an input byte: a claimed length trusted would allocate far past it.
        Harness.ThrowIfAllocatedTooMuch("typed", (128 * 1024) + (4096 * 10), 10);
        FuzzFindingException finding = Assert.Throws<FuzzFindingException>(() => Harness.ThrowIfAllocatedTooMuch("typed", (128 * 1024) + (4096 * 10) + 1, 10));
        Assert.StartsWith("typed: 172", finding.Message, StringComparison.Ordinal);
        Assert.EndsWith("033 bytes allocated for a 10-byte input", finding.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void TheHarness_FlagsWhatItShould()
    {
        // A harmless input passes every check; an unknown target is refused; seeds decode as written.
        Harness.Check("reader", [0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00]);
        Assert.Throws<ArgumentException>(() => Harness.Check("nonsense", [0x00]));
        Harness.Record record = Harness.Decode(Harness.Encode(0x04, [0x0a, 0x00], [0x00, 0x00, 0x00, 0x00, 0x07, 0x00]));
        Assert.Equal(Confluent.Kafka.MessageComponentType.Key, record.Context.Component);
        Assert.True(record.Context.Headers.TryGetLastBytes(SchemaIdHeaderNames.Key, out byte[] header));
        Assert.Equal(6, header.Length);
        Assert.Equal([0x0a, 0x00], record.Data);
    }
}
