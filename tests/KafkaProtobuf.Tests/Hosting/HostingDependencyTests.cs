using System.Linq;
using ArchUnitNET.Fluent;
using ArchUnitNET.Loader;
using ArchUnitNET.xUnit;
using KafkaProtobuf.Hosting;
using Xunit;
using static ArchUnitNET.Fluent.ArchRuleDefinition;

namespace KafkaProtobuf.Tests.Hosting;

/// <summary>
/// The hosted consumer's parts call one way: each part (a folder, and its namespace) may use only the parts below it in
/// <see cref="PartsTopDown"/>, never one above, so no two parts import each other and a change to a lower part cannot
/// need the parts above it. The package's root namespace is its public surface and its composition (registration,
/// configuration): only the consumer service, the top part, may use the composition.
/// </summary>
public sealed class HostingDependencyTests
{
    private const string Root = "KafkaProtobuf.Hosting";

    // Top to bottom: a part may use the parts after it.
    private static readonly string[] PartsTopDown = ["Service", "Loops", "Intake", "Conclusion", "Batching", "Scheduling", "Consuming", "Retrying", "Handling", "Health", "Diagnostics"];

    private static readonly ArchUnitNET.Domain.Architecture Hosting = new ArchLoader().LoadAssemblies(typeof(KafkaProtobufConsumerOptions).Assembly).Build();

    public static TheoryData<string> Parts() => new(PartsTopDown);

    [Theory]
    [MemberData(nameof(Parts))]
    public void APart_UsesNoPartAboveIt(string part)
    {
        string[] above = PartsTopDown.TakeWhile(p => p != part).ToArray();
        if (above.Length == 0)
        {
            Assert.Equal("Service", part); // the top part: nothing above it to check
            return;
        }

        IArchRule rule = Types().That().ResideInNamespace(Root + "." + part)
            .Should().NotDependOnAny(Types().That().ResideInNamespaceMatching(Root + @"\.(" + string.Join("|", above) + @")(\..*)?$"))
            .Because("the hosted consumer's parts call one way, from the consumer service down");
        rule.Check(Hosting);
    }

    [Fact]
    public void OnlyTheConsumerService_UsesTheComposition()
    {
        IArchRule rule = Types().That().ResideInNamespaceMatching(Root + @"\.(" + string.Join("|", PartsTopDown.Skip(1)) + @")$")
            .Should().NotDependOnAny(Types().That().HaveFullNameMatching(
                @"^KafkaProtobuf\.Hosting\.(ConsumerRegistration`2|KafkaProtobufConsumerOptions|ConsumerConfiguration|KafkaProtobufConsumerBuilder`2|KafkaProtobufServiceCollectionExtensions)$"))
            .Because("each part takes settings of its own; the consumer service turns the options into them");
        rule.Check(Hosting);
    }

    [Fact]
    public void EveryPart_IsListed()
    {
        string[] found = Hosting.Namespaces.Select(n => n.FullName).Where(n => n.StartsWith(Root + ".", System.StringComparison.Ordinal))
            .Select(n => n[(Root.Length + 1)..]).Order().ToArray();
        Assert.Equal(PartsTopDown.Order(), found);
    }
}
