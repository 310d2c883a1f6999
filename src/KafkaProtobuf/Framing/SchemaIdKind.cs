using System.Diagnostics.CodeAnalysis;

namespace KafkaProtobuf;

/// <summary>The form of a Schema Registry schema identifier.</summary>
public enum SchemaIdKind
{
    /// <summary>No schema identifier: not read yet, or not present.</summary>
    None = 0,

    /// <summary>A 32-bit schema id, written after magic byte <c>0x00</c>.</summary>
    Id = 1,

    /// <summary>A 128-bit schema GUID, written after magic byte <c>0x01</c> in RFC 4122 (big-endian) byte order.</summary>
    [SuppressMessage("Naming", "CA1720:Identifier contains type name", Justification = "Schema Registry's own term for this identifier.")]
    Guid = 2,
}
