using System.Linq;
using KafkaProtobuf.Tests.Shared;
using Xunit;

namespace KafkaProtobuf.Tests.PublicApi;

/// <summary>
/// The default of every option of the core, registry, hosting, Streamiz and testing packages, pinned in
/// OptionDefaults.txt: versioning.md counts a changed default as a breaking change. <c>KAFKAPROTOBUF_WRITE_DEFAULTS=1</c>
/// rewrites the file (for a new option; a changed line is a decision for a major version).
/// </summary>
public sealed class OptionDefaultsTests
{
    [Fact]
    public void EveryOptionsDefault_IsTheOnePinned()
    {
        string[] packages = ["KafkaProtobuf", "KafkaProtobuf.SchemaRegistry", "KafkaProtobuf.Hosting", "KafkaProtobuf.Streamiz", "KafkaProtobuf.Testing"];
        var types = packages.SelectMany(p => OptionDefaults.OptionTypes(System.Reflection.Assembly.Load(p))).ToList();
        Assert.Contains(types, t => t.Name == "KafkaProtobufConsumerOptions"); // the walk found them

        OptionDefaults.AssertMatches(OptionDefaults.RepositoryFile("tests/KafkaProtobuf.Tests/PublicApi/OptionDefaults.txt"), OptionDefaults.Describe(types));
    }
}
