using System.Collections.Generic;
using System.Linq;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>What <see cref="ProtobufCompatibility.Check"/> found: the verdict and each comparison behind it.</summary>
public sealed class CompatibilityVerdict
{
    internal CompatibilityVerdict(CompatibilityLevel level, IReadOnlyList<SchemaComparison> comparisons)
    {
        Level = level;
        Comparisons = comparisons;
    }

    /// <summary>The level checked.</summary>
    public CompatibilityLevel Level { get; }

    /// <summary>Each comparison made: the latest version first; for full levels backward then forward per version.</summary>
    public IReadOnlyList<SchemaComparison> Comparisons { get; }

    /// <summary>Whether the new schema may be registered at <see cref="Level"/>.</summary>
    public bool IsCompatible => Comparisons.All(c => c.IsCompatible);

    /// <summary>The incompatible differences of every comparison, each once.</summary>
    public IReadOnlyList<SchemaDifference> Incompatibilities => Comparisons.SelectMany(c => c.Differences).Where(d => !d.IsCompatible).Distinct().ToList();
}
