using Xunit;

namespace KafkaProtobuf.PackageTests;

/// <summary>The test classes that restore the packed packages share one packing (it takes a minute).</summary>
[CollectionDefinition(Name)]
public sealed class PackedPackagesShared : ICollectionFixture<PackedPackages>
{
    public const string Name = "Packed packages";
}
