using System.Collections.Generic;
using System.Linq;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>The new schema compared with one earlier version, in one direction.</summary>
public sealed class SchemaComparison
{
    internal SchemaComparison(int earlierVersion, CompatibilityDirection direction, IReadOnlyList<SchemaDifference> differences)
    {
        EarlierVersion = earlierVersion;
        Direction = direction;
        Differences = differences;
    }

    /// <summary>The earlier version's place in the list checked against (0: the oldest).</summary>
    public int EarlierVersion { get; }

    /// <summary>Which reads which.</summary>
    public CompatibilityDirection Direction { get; }

    /// <summary>Every difference found, compatible ones included.</summary>
    public IReadOnlyList<SchemaDifference> Differences { get; }

    /// <summary>Whether every difference is compatible.</summary>
    public bool IsCompatible => Differences.All(d => d.IsCompatible);
}
