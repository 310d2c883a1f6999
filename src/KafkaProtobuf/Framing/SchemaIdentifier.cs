using System;
using System.Diagnostics.CodeAnalysis;
using System.Globalization;

namespace KafkaProtobuf;

/// <summary>
/// A Schema Registry schema identifier: either a 32-bit schema id or a schema GUID. The default value has
/// <see cref="Kind"/> <see cref="SchemaIdKind.None"/> and stands for "no identifier read".
/// </summary>
public readonly struct SchemaIdentifier : IEquatable<SchemaIdentifier>
{
    private readonly int _id;
    private readonly Guid _guid;

    private SchemaIdentifier(SchemaIdKind kind, int id, Guid guid)
    {
        Kind = kind;
        _id = id;
        _guid = guid;
    }

    /// <summary>Whether this is a schema id, a schema GUID, or nothing.</summary>
    public SchemaIdKind Kind { get; }

    /// <summary>The schema id when <see cref="Kind"/> is <see cref="SchemaIdKind.Id"/>, otherwise <see langword="null"/>.</summary>
    /// <remarks>Ids are read as signed big-endian 32-bit integers, like Confluent's clients: <c>FF FF FF FF</c> is -1.</remarks>
    public int? Id => Kind == SchemaIdKind.Id ? _id : null;

    /// <summary>The schema GUID when <see cref="Kind"/> is <see cref="SchemaIdKind.Guid"/>, otherwise <see langword="null"/>.</summary>
    [SuppressMessage("Naming", "CA1720:Identifier contains type name", Justification = "Schema Registry's own term for this identifier.")]
    public Guid? Guid => Kind == SchemaIdKind.Guid ? _guid : null;

    /// <summary>Creates an identifier for a 32-bit schema id (any value, negative ones included).</summary>
    /// <param name="id">The schema id.</param>
    /// <returns>The identifier.</returns>
    public static SchemaIdentifier FromId(int id) => new(SchemaIdKind.Id, id, default);

    /// <summary>Creates an identifier for a schema GUID.</summary>
    /// <param name="guid">The schema GUID.</param>
    /// <returns>The identifier.</returns>
    [SuppressMessage("Naming", "CA1720:Identifier contains type name", Justification = "Schema Registry's own term for this identifier.")]
    public static SchemaIdentifier FromGuid(Guid guid) => new(SchemaIdKind.Guid, 0, guid);

    /// <summary>Compares two identifiers for equality.</summary>
    /// <param name="left">The first identifier.</param>
    /// <param name="right">The second identifier.</param>
    /// <returns><see langword="true"/> when both have the same kind and value.</returns>
    public static bool operator ==(SchemaIdentifier left, SchemaIdentifier right) => left.Equals(right);

    /// <summary>Compares two identifiers for inequality.</summary>
    /// <param name="left">The first identifier.</param>
    /// <param name="right">The second identifier.</param>
    /// <returns><see langword="true"/> when they differ in kind or value.</returns>
    public static bool operator !=(SchemaIdentifier left, SchemaIdentifier right) => !left.Equals(right);

    /// <inheritdoc/>
    public bool Equals(SchemaIdentifier other) => Kind == other.Kind && _id == other._id && _guid == other._guid;

    /// <inheritdoc/>
    public override bool Equals(object? obj) => obj is SchemaIdentifier other && Equals(other);

    /// <inheritdoc/>
    public override int GetHashCode() => Kind switch
    {
        SchemaIdKind.Id => _id,
        SchemaIdKind.Guid => _guid.GetHashCode(),
        _ => 0,
    };

    /// <summary>Returns <c>id 42</c>, <c>guid 535dfcf3-ca23-439a-a2aa-7cf32e6ddf10</c> or <c>none</c>.</summary>
    /// <returns>A short description for logs and messages.</returns>
    public override string ToString() => Kind switch
    {
        SchemaIdKind.Id => "id " + _id.ToString(CultureInfo.InvariantCulture),
        SchemaIdKind.Guid => "guid " + _guid.ToString("D"),
        _ => "none",
    };
}
