using System.Collections.Generic;
using System.Linq;
using System.Text.RegularExpressions;
using ArchUnitNET.Domain;
using ArchUnitNET.Fluent;
using ArchUnitNET.Loader;
using ArchUnitNET.xUnit;
using KafkaProtobuf.Hosting;
using Xunit;
using static ArchUnitNET.Fluent.ArchRuleDefinition;

namespace KafkaProtobuf.Tests.Hosting;

/// <summary>
/// The hosted consumer's layers call one way, top down: a layer may use only the layers below it, so no cycle can form
/// between them, the root namespace's included. Each internal part is a folder and its namespace. The root namespace
/// (what users need one <c>using</c> for: every public type is there) holds four layers: at the top, the registration
/// entry points, which register the consumer service; below the service, the operators' view of the running consumers;
/// below it, the composition the service reads (the registration, the builder, the options of a whole consumer); at the
/// bottom, the public surface every part may read (the options of one feature, enums, handler interfaces, snapshots,
/// metric, span and header names). A root type is surface unless listed in another root layer, and the surface is public.
/// </summary>
public sealed class HostingDependencyTests
{
    private const string Root = "KafkaProtobuf.Hosting";

    private static readonly string[] EntryPoints = ["KafkaProtobufServiceCollectionExtensions", "KafkaProtobufHealthChecksBuilderExtensions"];

    private static readonly string[] Operations = ["KafkaProtobufConsumerOperations"];

    private static readonly string[] Composition =
        [
            "ConsumerRegistration`2", "KafkaProtobufConsumerOptions", "ConsumerOptionsValidation", "ConsumerClientSettings", "ConsumerConfiguration",
            "KafkaProtobufConsumerBuilder`2", "KafkaProtobufConsumerBuilderExtensions", "ConsumerNames",
        ];

    // Top to bottom: a layer may use the layers after it. The root's three layers are named in capitals.
    private static readonly string[] LayersTopDown =
        ["ENTRY POINTS", "Service", "OPERATIONS", "COMPOSITION", "Loops", "Work", "Conclusion", "Batching", "Scheduling", "Consuming", "Retrying", "Handling", "Health", "Diagnostics", "SURFACE"];

    private static readonly Architecture Hosting = new ArchLoader().LoadAssemblies(typeof(KafkaProtobufConsumerOptions).Assembly).Build();

    public static TheoryData<string> Layers() => new(LayersTopDown);

    [Theory]
    [MemberData(nameof(Layers))]
    public void ALayer_UsesNoLayerAboveIt(string layer)
    {
        string[] above = LayersTopDown.TakeWhile(l => l != layer).ToArray();
        if (above.Length == 0)
        {
            Assert.Equal(EntryPoints.Order(), TypesOf(layer).Select(t => t.Name).Where(EntryPoints.Contains).Order()); // the top layer: nothing above it to check
            return;
        }

        IArchRule rule = Types().That().Are(TypesOf(layer))
            .Should().NotDependOnAny(Types().That().Are(TypesOf(above)))
            .Because("the hosted consumer's layers call one way, from the registration down to the public surface");
        rule.Check(Hosting);
    }

    [Fact]
    public void TheRootsSurface_IsPublic_AndTheRootsOtherTypesAreListed()
    {
        var root = Hosting.Types.Where(t => t.Namespace.FullName == Root && !t.FullName.Contains('<', System.StringComparison.Ordinal)).ToList();
        Assert.Contains(root, t => t.Name == "BatchOptions"); // the walk found the root
        Assert.All(EntryPoints.Concat(Operations).Concat(Composition), name => Assert.Contains(root, t => t.Name == name));
        string[] internalSurface = root.Where(t => IsSurface(t) && OutermostName(t) == t.Name && t.Visibility != Visibility.Public).Select(t => t.FullName).ToArray();
        Assert.True(internalSurface.Length == 0, "internal types in the root's surface (make them composition, or move them into a part): " + string.Join(", ", internalSurface));
    }

    [Fact]
    public void EveryPart_IsALayer()
    {
        string[] found = Hosting.Namespaces.Select(n => n.FullName).Where(n => n.StartsWith(Root + ".", System.StringComparison.Ordinal))
            .Select(n => n[(Root.Length + 1)..]).Order().ToArray();
        Assert.Equal(LayersTopDown.Where(l => !l.Equals(l.ToUpperInvariant(), System.StringComparison.Ordinal)).Order(), found);
    }

    private static bool IsSurface(IType type) => !EntryPoints.Contains(type.Name) && !Operations.Contains(type.Name) && !Composition.Contains(type.Name);

    private static IEnumerable<IType> TypesOf(params string[] layers) => Hosting.Types.Where(t => layers.Any(layer => IsIn(t, layer)));

    private static bool IsIn(IType type, string layer)
    {
        string ns = type.Namespace.FullName;
        string outer = OutermostName(type);
        return layer switch
        {
            "ENTRY POINTS" => ns == Root && EntryPoints.Contains(outer),
            "OPERATIONS" => ns == Root && Operations.Contains(outer),
            "COMPOSITION" => ns == Root && Composition.Contains(outer),
            "SURFACE" => ns == Root && !EntryPoints.Contains(outer) && !Operations.Contains(outer) && !Composition.Contains(outer),
            _ => ns == Root + "." + layer || ns.StartsWith(Root + "." + layer + ".", System.StringComparison.Ordinal),
        };
    }

    /// <summary>A nested type (a closure, an iterator) belongs where the type it is declared in does.</summary>
    private static string OutermostName(IType type)
    {
        string name = type.FullName.Substring(type.Namespace.FullName.Length + 1);
        return Regex.Replace(name, @"[+/].*$", string.Empty);
    }
}
