using System;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>A schema's reference to another registered schema: for Protobuf, an import.</summary>
public sealed class RegistryReference : IEquatable<RegistryReference>
{
    /// <summary>Creates a reference.</summary>
    /// <param name="name">The import path the referring schema uses, e.g. <c>shop/common.proto</c>.</param>
    /// <param name="subject">The subject the referenced schema is registered under.</param>
    /// <param name="version">Its version in that subject.</param>
    public RegistryReference(string name, string subject, int version)
    {
        Name = name ?? throw new ArgumentNullException(nameof(name));
        Subject = subject ?? throw new ArgumentNullException(nameof(subject));
        Version = version;
    }

    /// <summary>The import path the referring schema uses.</summary>
    public string Name { get; }

    /// <summary>The subject of the referenced schema.</summary>
    public string Subject { get; }

    /// <summary>The version of the referenced schema in <see cref="Subject"/>.</summary>
    public int Version { get; }

    /// <inheritdoc/>
    public bool Equals(RegistryReference? other) =>
        other is not null && Name == other.Name && Subject == other.Subject && Version == other.Version;

    /// <inheritdoc/>
    public override bool Equals(object? obj) => Equals(obj as RegistryReference);

    /// <inheritdoc/>
    public override int GetHashCode() => (Name.GetHashCode() * 397) ^ (Subject.GetHashCode() * 31) ^ Version;

    /// <summary>Returns <c>shop/common.proto → shop/common.proto v1</c>.</summary>
    /// <returns>A description.</returns>
    public override string ToString() => Name + " → " + Subject + " v" + Version.ToString(System.Globalization.CultureInfo.InvariantCulture);
}
