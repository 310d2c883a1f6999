using System;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>
/// One difference between an original and an update schema: its kind, where (<see cref="Path"/>, as Schema Registry
/// writes it) and whether it is compatible.
/// </summary>
public sealed class SchemaDifference : IEquatable<SchemaDifference>
{
    /// <summary>A difference of a kind at a path (see <see cref="Path"/>).</summary>
    /// <param name="kind">The kind.</param>
    /// <param name="path">Where.</param>
    public SchemaDifference(SchemaDifferenceKind kind, string path)
    {
        Kind = kind;
        Path = path ?? throw new ArgumentNullException(nameof(path));
    }

    /// <summary>The kind.</summary>
    public SchemaDifferenceKind Kind { get; }

    /// <summary>
    /// Where: <c>#/</c>, then the message's names from the file's top level without the package (<c>Outer/Inner</c>),
    /// then a field number, or a oneof's name and a field number; an enum's constant by its number
    /// (<c>#/TestMessage/2</c>, <c>#/TestMessage/new_oneof/3</c>, <c>#/Status/1</c>). The package's change is at <c>#/</c>.
    /// </summary>
    public string Path { get; }

    /// <summary>Schema Registry's name of the kind, e.g. <c>FIELD_KIND_CHANGED</c>.</summary>
    public string Code => SchemaDifferenceKinds.Code(Kind);

    /// <summary>Whether the kind is compatible (a record written with either schema reads with the other).</summary>
    public bool IsCompatible => SchemaDifferenceKinds.IsCompatible(Kind);

    /// <summary>A sentence saying what changed and where.</summary>
    public string Description => SchemaDifferenceKinds.Describe(Kind, Path);

    /// <inheritdoc/>
    public bool Equals(SchemaDifference? other) => other is not null && other.Kind == Kind && string.Equals(other.Path, Path, StringComparison.Ordinal);

    /// <inheritdoc/>
    public override bool Equals(object? obj) => Equals(obj as SchemaDifference);

    /// <inheritdoc/>
    public override int GetHashCode() => ((int)Kind * 397) ^ StringComparer.Ordinal.GetHashCode(Path);

    /// <summary>The code and the path, as the registry lists them: <c>FIELD_KIND_CHANGED #/TestMessage/2</c>.</summary>
    /// <returns>The text.</returns>
    public override string ToString() => Code + " " + Path;
}
