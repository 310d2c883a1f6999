using System;
using System.IO;
using System.Linq;
using KafkaProtobuf.Fuzz;
using Xunit;

namespace KafkaProtobuf.Tests.Tool;

/// <summary>
/// The findings of the <c>tool</c> and <c>registry</c> fuzz targets, replayed through their harnesses
/// (fuzz/KafkaProtobuf.Fuzz/ToolHarness.cs, RegistryAnswerHarness.cs), and the harnesses' own checks shown to bite.
/// </summary>
public class ToolAndRegistryFuzzRegressionTests
{
    public static TheoryData<string> Findings()
    {
        var data = new TheoryData<string>();
        foreach (string file in Directory.GetFiles(Path.Combine(AppContext.BaseDirectory, "FuzzRegressions"), "*.bin").Order())
        {
            if (Path.GetFileName(file).Split('-')[0] is "tool" or "registry")
            {
                data.Add(Path.GetFileName(file));
            }
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Findings))]
    public void Finding_NowPassesTheHarnessChecks(string file)
    {
        byte[] input = File.ReadAllBytes(Path.Combine(AppContext.BaseDirectory, "FuzzRegressions", file));
        if (file.StartsWith("tool-", StringComparison.Ordinal))
        {
            ToolHarness.Check(input);
        }
        else
        {
            RegistryAnswerHarness.Check(input);
        }
    }

    [Fact]
    public void TheHarnesses_PassOrdinaryInputs_AndTheirOwnHostileOnes()
    {
        ToolHarness.Check([0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x0a, 0x01, 0x41]); // a Reading
        ToolHarness.Check([0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, .. HostilePayloadToolTests.Nested(150)]); // a Node nested too deep
        ToolHarness.Check([0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x02, .. HostilePayloadToolTests.NestedGroups()]);
        RegistryAnswerHarness.Check([0x00, .. "{\"schemaType\":\"AVRO\",\"schema\":\"\\\"string\\\"\"}"u8]);
        RegistryAnswerHarness.Check([0x20, .. "<html>a proxy</html>"u8]);
        Assert.NotEmpty(Findings());
    }
}
