using System;
using System.Collections.Generic;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>The registry's names of the levels (<c>BACKWARD_TRANSITIVE</c>), as <c>/config</c> and the tool spell them.</summary>
public static class CompatibilityLevelNames
{
    private static readonly string[] Names = ["NONE", "BACKWARD", "BACKWARD_TRANSITIVE", "FORWARD", "FORWARD_TRANSITIVE", "FULL", "FULL_TRANSITIVE"];

    // What All hands out: a view that cannot be cast back to the array TryParse and Of read.
    private static readonly IReadOnlyList<string> ReadOnlyNames = Array.AsReadOnly(Names);

    /// <summary>Every name, in the order of <see cref="CompatibilityLevel"/>.</summary>
    public static IReadOnlyList<string> All => ReadOnlyNames;

    /// <summary>The registry's name of a level.</summary>
    /// <param name="level">The level.</param>
    /// <returns>E.g. <c>FULL_TRANSITIVE</c>.</returns>
    public static string Of(CompatibilityLevel level) =>
        (uint)level < (uint)Names.Length ? Names[(int)level] : throw new ArgumentOutOfRangeException(nameof(level), level, "Not a compatibility level.");

    /// <summary>The level a registry name stands for, in any case (the registry itself takes <c>backward</c> too).</summary>
    /// <param name="name">The name.</param>
    /// <param name="level">The level, when the name is one.</param>
    /// <returns>Whether it is.</returns>
    public static bool TryParse(string? name, out CompatibilityLevel level)
    {
        int index = name is null ? -1 : Array.FindIndex(Names, n => string.Equals(n, name, StringComparison.OrdinalIgnoreCase));
        level = (CompatibilityLevel)Math.Max(index, 0);
        return index >= 0;
    }
}
