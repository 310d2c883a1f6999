using Google.Protobuf.Reflection;

namespace KafkaProtobuf.Descriptors;

/// <summary>The wire types of the Protobuf encoding, by their number in a tag's low three bits.</summary>
internal enum WireType
{
    Varint = 0,
    Fixed64 = 1,
    LengthDelimited = 2,
    StartGroup = 3,
    EndGroup = 4,
    Fixed32 = 5,
}

/// <summary>Which wire type a field of a given type is written with.</summary>
internal static class WireTypes
{
    /// <summary>The wire type of one (unpacked) value of a field of <paramref name="type"/>.</summary>
    internal static WireType Of(FieldType type) => type switch
    {
        FieldType.Double or FieldType.Fixed64 or FieldType.SFixed64 => WireType.Fixed64,
        FieldType.Float or FieldType.Fixed32 or FieldType.SFixed32 => WireType.Fixed32,
        FieldType.String or FieldType.Bytes or FieldType.Message => WireType.LengthDelimited,
        FieldType.Group => WireType.StartGroup,
        _ => WireType.Varint, // int32, int64, uint32, uint64, sint32, sint64, bool, enum
    };

    /// <summary>Whether a repeated field of <paramref name="type"/> may be packed: written as one length-delimited run of values.</summary>
    internal static bool IsPackable(FieldType type) => Of(type) is WireType.Varint or WireType.Fixed32 or WireType.Fixed64;

    /// <summary>The wire type's name in messages: <c>varint</c>, <c>64-bit</c>, <c>length-delimited</c>, <c>group</c>, <c>32-bit</c>.</summary>
    internal static string Name(WireType type) => type switch
    {
        WireType.Varint => "varint",
        WireType.Fixed64 => "64-bit",
        WireType.LengthDelimited => "length-delimited",
        WireType.StartGroup or WireType.EndGroup => "group",
        _ => "32-bit",
    };
}
