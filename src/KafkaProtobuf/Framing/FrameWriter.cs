using System;
using System.Buffers.Binary;

namespace KafkaProtobuf.Framing;

/// <summary>
/// Writes the schema-identifier block of Schema Registry framing: the magic byte, the schema id (4 bytes, big-endian)
/// or GUID (16 bytes, RFC 4122 order), and the message-index path. In front of a payload it is the record's prefix;
/// on its own it is the value of a schema-id header. The output is byte-identical to Confluent's serializers:
/// <c>[0]</c> is the single byte <c>00</c>.
/// </summary>
public static class FrameWriter
{
    /// <summary>Returns how many bytes <see cref="WriteSchemaIdAndIndexes"/> writes.</summary>
    /// <param name="schemaId">The schema id or GUID.</param>
    /// <param name="messageIndexes">The message-index path, top level first; at least one index, none negative.</param>
    /// <param name="encoding">The varint encoding of the path.</param>
    /// <returns>The length in bytes.</returns>
    /// <exception cref="ArgumentException">The identifier is <see cref="SchemaIdKind.None"/>, or the path is empty or has a negative index.</exception>
    public static int GetSchemaIdAndIndexesLength(SchemaIdentifier schemaId, ReadOnlySpan<int> messageIndexes, MessageIndexEncoding encoding)
    {
        int length = 1 + GetIdentifierLength(schemaId);
        ValidatePath(messageIndexes);
        if (IsShortFormZero(messageIndexes))
        {
            return length + 1;
        }

        length += Varint.GetLength(Varint.Encode(messageIndexes.Length, encoding));
        foreach (int index in messageIndexes)
        {
            length += Varint.GetLength(Varint.Encode(index, encoding));
        }

        return length;
    }

    /// <summary>Writes the magic byte, the identifier and the message-index path to <paramref name="destination"/>.</summary>
    /// <param name="destination">Where to write; at least <see cref="GetSchemaIdAndIndexesLength"/> bytes.</param>
    /// <param name="schemaId">The schema id or GUID.</param>
    /// <param name="messageIndexes">The message-index path, top level first; at least one index, none negative.</param>
    /// <param name="encoding">The varint encoding of the path.</param>
    /// <returns>The number of bytes written.</returns>
    /// <exception cref="ArgumentException">
    /// The identifier is <see cref="SchemaIdKind.None"/>, the path is empty or has a negative index, or
    /// <paramref name="destination"/> is too short.
    /// </exception>
    public static int WriteSchemaIdAndIndexes(Span<byte> destination, SchemaIdentifier schemaId, ReadOnlySpan<int> messageIndexes, MessageIndexEncoding encoding)
    {
        if (destination.Length < GetSchemaIdAndIndexesLength(schemaId, messageIndexes, encoding))
        {
            throw new ArgumentException("The destination is too short for the schema identifier and path.", nameof(destination));
        }

        int position;
        if (schemaId.Kind == SchemaIdKind.Id)
        {
            destination[0] = 0x00;
            BinaryPrimitives.WriteInt32BigEndian(destination.Slice(1), schemaId.Id.GetValueOrDefault());
            position = 5;
        }
        else
        {
            destination[0] = 0x01;
            BigEndianGuid.Write(destination.Slice(1), schemaId.Guid.GetValueOrDefault());
            position = 1 + BigEndianGuid.Length;
        }

        if (IsShortFormZero(messageIndexes))
        {
            destination[position] = 0x00;
            return position + 1;
        }

        position += Varint.Write(destination.Slice(position), Varint.Encode(messageIndexes.Length, encoding));
        foreach (int index in messageIndexes)
        {
            position += Varint.Write(destination.Slice(position), Varint.Encode(index, encoding));
        }

        return position;
    }

    /// <summary>Returns a new array holding the magic byte, the identifier and the message-index path.</summary>
    /// <param name="schemaId">The schema id or GUID.</param>
    /// <param name="messageIndexes">The message-index path, top level first; at least one index, none negative.</param>
    /// <param name="encoding">The varint encoding of the path.</param>
    /// <returns>The bytes, e.g. a schema-id header value.</returns>
    /// <exception cref="ArgumentException">The identifier is <see cref="SchemaIdKind.None"/>, or the path is empty or has a negative index.</exception>
    public static byte[] ToSchemaIdAndIndexes(SchemaIdentifier schemaId, ReadOnlySpan<int> messageIndexes, MessageIndexEncoding encoding)
    {
        byte[] result = new byte[GetSchemaIdAndIndexesLength(schemaId, messageIndexes, encoding)];
        WriteSchemaIdAndIndexes(result, schemaId, messageIndexes, encoding);
        return result;
    }

    private static int GetIdentifierLength(SchemaIdentifier schemaId) => schemaId.Kind switch
    {
        SchemaIdKind.Id => 4,
        SchemaIdKind.Guid => BigEndianGuid.Length,
        _ => throw new ArgumentException("The schema identifier is empty: use SchemaIdentifier.FromId or FromGuid.", nameof(schemaId)),
    };

    private static void ValidatePath(ReadOnlySpan<int> messageIndexes)
    {
        if (messageIndexes.IsEmpty)
        {
            throw new ArgumentException("A message-index path has at least one index; the first top-level message is [0].", nameof(messageIndexes));
        }

        foreach (int index in messageIndexes)
        {
            if (index < 0)
            {
                throw new ArgumentException("Message indexes cannot be negative.", nameof(messageIndexes));
            }
        }
    }

    // Confluent writes [0] as one 00 byte (a zero count) in both encodings.
    private static bool IsShortFormZero(ReadOnlySpan<int> messageIndexes) => messageIndexes.Length == 1 && messageIndexes[0] == 0;
}
