using System;
using System.Collections.Generic;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>
/// Protobuf schema compatibility checked as Confluent Schema Registry checks it, offline: the same kinds of difference,
/// the same paths, the same verdict per kind, the same levels. Use it in a test or a build to learn before the first
/// registration that the registry would refuse a .proto change.
/// </summary>
public static class ProtobufCompatibility
{
    /// <summary>
    /// How many messages deep a comparison goes, nested or named through fields (a type named from several places is
    /// walked once): a schema built deeper is refused rather than risk the stack.
    /// </summary>
    public const int MaxTypeDepth = 128;

    /// <summary>Every difference between an original schema and an update (compatible ones included).</summary>
    /// <param name="original">The schema records were written with.</param>
    /// <param name="update">The schema they are read with.</param>
    /// <returns>The differences, each once.</returns>
    /// <exception cref="ArgumentException">The schemas' types go deeper than <see cref="MaxTypeDepth"/>.</exception>
    public static IReadOnlyList<SchemaDifference> Compare(ProtoSchema original, ProtoSchema update) =>
        SchemaComparer.Compare(original ?? throw new ArgumentNullException(nameof(original)), update ?? throw new ArgumentNullException(nameof(update)));

    /// <summary>
    /// Whether <paramref name="update"/> may follow <paramref name="earlier"/> versions at <paramref name="level"/>:
    /// backward compares each earlier version (original) with the update, forward the update (original) with each
    /// earlier version; non-transitive levels take only the latest, transitive ones every earlier version.
    /// </summary>
    /// <param name="update">The new schema.</param>
    /// <param name="earlier">The subject's versions so far, oldest first (the latest last); may be empty.</param>
    /// <param name="level">The level.</param>
    /// <returns>The verdict, with each comparison made.</returns>
    /// <exception cref="ArgumentException">The schemas' types go deeper than <see cref="MaxTypeDepth"/>.</exception>
    public static CompatibilityVerdict Check(ProtoSchema update, IReadOnlyList<ProtoSchema> earlier, CompatibilityLevel level)
    {
        if (update is null)
        {
            throw new ArgumentNullException(nameof(update));
        }

        if (earlier is null)
        {
            throw new ArgumentNullException(nameof(earlier));
        }

        (bool backward, bool forward, bool transitive) = level switch
        {
            CompatibilityLevel.None => (false, false, false),
            CompatibilityLevel.Backward => (true, false, false),
            CompatibilityLevel.BackwardTransitive => (true, false, true),
            CompatibilityLevel.Forward => (false, true, false),
            CompatibilityLevel.ForwardTransitive => (false, true, true),
            CompatibilityLevel.Full => (true, true, false),
            CompatibilityLevel.FullTransitive => (true, true, true),
            _ => throw new ArgumentOutOfRangeException(nameof(level), level, "Not a compatibility level."),
        };

        var comparisons = new List<SchemaComparison>();
        int oldest = transitive ? 0 : Math.Max(0, earlier.Count - 1);
        for (int version = earlier.Count - 1; version >= oldest && (backward || forward); version--)
        {
            ProtoSchema previous = earlier[version] ?? throw new ArgumentException("An earlier version is null.", nameof(earlier));
            if (backward)
            {
                comparisons.Add(new SchemaComparison(version, CompatibilityDirection.Backward, Compare(previous, update)));
            }

            if (forward)
            {
                comparisons.Add(new SchemaComparison(version, CompatibilityDirection.Forward, Compare(update, previous)));
            }
        }

        return new CompatibilityVerdict(level, comparisons);
    }
}
