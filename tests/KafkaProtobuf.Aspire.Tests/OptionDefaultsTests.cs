using System.Linq;
using KafkaProtobuf.Tests.Shared;
using Xunit;

namespace KafkaProtobuf.Aspire.Tests;

/// <summary>
/// The default of every option of this package, pinned in OptionDefaults.txt beside this test: versioning.md counts a
/// changed default as a breaking change. <c>KAFKAPROTOBUF_WRITE_DEFAULTS=1</c> rewrites the file (for a new option).
/// </summary>
public sealed class OptionDefaultsTests
{
    [Fact]
    public void EveryOptionsDefault_IsTheOnePinned()
    {
        string[] packages = ["KafkaProtobuf.Aspire", "KafkaProtobuf.Aspire.Hosting"];
        var types = packages.SelectMany(p => OptionDefaults.OptionTypes(System.Reflection.Assembly.Load(p))).ToList();
        Assert.NotEmpty(types);

        OptionDefaults.AssertMatches(OptionDefaults.RepositoryFile("tests/KafkaProtobuf.Aspire.Tests/OptionDefaults.txt"), OptionDefaults.Describe(types));
    }
}
