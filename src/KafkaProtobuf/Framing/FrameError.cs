using System;
using System.Globalization;
using KafkaProtobuf.Framing;

namespace KafkaProtobuf;

/// <summary>
/// What was wrong with a record, where, and (when it was already read) under which schema identifier.
/// Returned by the non-throwing reads (<see cref="FrameReader.TryRead(ReadOnlySpan{byte}, Confluent.Kafka.SerializationContext, out Frame, out FrameError)"/>)
/// and carried by <see cref="InvalidFrameException"/>. Creating or copying one allocates nothing.
/// </summary>
public readonly struct FrameError : IEquatable<FrameError>
{
    /// <summary>Creates an error description.</summary>
    /// <param name="code">What was wrong.</param>
    /// <param name="offset">The byte offset at which the fault was found, in the bytes <paramref name="location"/> names.</param>
    /// <param name="location">Whether <paramref name="offset"/> points into the record's data or its schema-id header.</param>
    /// <param name="schemaId">The schema identifier, when it was read before the fault; otherwise <see langword="default"/>.</param>
    public FrameError(FrameErrorCode code, int offset, FrameErrorLocation location, SchemaIdentifier schemaId)
    {
        Code = code;
        Offset = offset;
        Location = location;
        SchemaId = schemaId;
    }

    /// <summary>What was wrong; <see cref="FrameErrorCode.None"/> for the default value.</summary>
    public FrameErrorCode Code { get; }

    /// <summary>
    /// The byte offset at which the fault was found: the first byte of the item that could not be read (the magic
    /// byte, the identifier, a varint, the first extra header byte, the payload), counted from the start of the bytes
    /// <see cref="Location"/> names.
    /// </summary>
    public int Offset { get; }

    /// <summary>Whether <see cref="Offset"/> points into the record's key/value bytes or into its schema-id header value.</summary>
    public FrameErrorLocation Location { get; }

    /// <summary>
    /// The schema identifier, when it was read before the fault; <see cref="SchemaIdKind.None"/> when the fault came
    /// first.
    /// </summary>
    public SchemaIdentifier SchemaId { get; }

    /// <summary>Compares two errors for equality.</summary>
    /// <param name="left">The first error.</param>
    /// <param name="right">The second error.</param>
    /// <returns><see langword="true"/> when all fields are equal.</returns>
    public static bool operator ==(FrameError left, FrameError right) => left.Equals(right);

    /// <summary>Compares two errors for inequality.</summary>
    /// <param name="left">The first error.</param>
    /// <param name="right">The second error.</param>
    /// <returns><see langword="true"/> when any field differs.</returns>
    public static bool operator !=(FrameError left, FrameError right) => !left.Equals(right);

    /// <inheritdoc/>
    public bool Equals(FrameError other) =>
        Code == other.Code && Offset == other.Offset && Location == other.Location && SchemaId == other.SchemaId;

    /// <inheritdoc/>
    public override bool Equals(object? obj) => obj is FrameError other && Equals(other);

    /// <inheritdoc/>
    public override int GetHashCode() => ((int)Code * 397) ^ (Offset * 31) ^ ((int)Location << 30) ^ SchemaId.GetHashCode();

    /// <summary>Describes the error, e.g. <c>NegativeMessageIndex: a message index is negative, at byte 6 of the record data (schema id 42)</c>.</summary>
    /// <returns>The description.</returns>
    public override string ToString() => Code + ": " + Describe();

    internal string Describe()
    {
        string where = string.Format(
            CultureInfo.InvariantCulture,
            "at byte {0} of the {1}",
            Offset,
            Location == FrameErrorLocation.SchemaIdHeader ? "schema-id header value" : "record data");
        string schema = SchemaId.Kind == SchemaIdKind.None ? string.Empty : " (schema " + SchemaId + ")";
        return FrameErrorCodes.Describe(Code, Location) + ", " + where + schema;
    }
}
