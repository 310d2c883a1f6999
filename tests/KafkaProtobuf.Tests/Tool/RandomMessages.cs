using System;
using System.Collections;
using System.Linq;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using Google.Protobuf.WellKnownTypes;

namespace KafkaProtobuf.Tests.Tool;

/// <summary>
/// Random messages of any generated type, filled through Google.Protobuf's reflection: every field set or not, extreme
/// and ordinary numbers, non-ASCII strings, repeated and map fields of 0 to 4 entries, nested messages to a small depth,
/// and well-known types with values JsonFormatter accepts (timestamps and durations in range, finite Struct numbers).
/// </summary>
public static class RandomMessages
{
    private static readonly string[] Paths = ["name", "a_b", "money.units", "nested_thing.x"];
    private static readonly string[] Words = ["", "a", "héllo", "日本", "tab\there", "quote\"", "emoji 😀", "x_y", "<tag>&"];

    public static IMessage Create(MessageDescriptor type, Random random, TypeRegistry anyTypes, int depth = 0)
    {
        IMessage message = type.Parser.ParseFrom(ByteString.Empty);
        switch (type.FullName)
        {
            case "google.protobuf.Timestamp":
                return new Timestamp { Seconds = random.NextInt64(-62_135_596_800, 253_402_300_800), Nanos = Nanos(random, negative: false) };
            case "google.protobuf.Duration":
                long seconds = random.NextInt64(-315_576_000_000, 315_576_000_001);
                int nanos = Nanos(random, negative: false);
                return new Duration { Seconds = seconds, Nanos = seconds < 0 ? -nanos : seconds == 0 && random.Next(2) == 0 ? -nanos : nanos };
            case "google.protobuf.Value":
                return RandomValue(random, depth);
            case "google.protobuf.Struct":
                var fields = new Struct();
                for (int i = random.Next(4); i > 0; i--)
                {
                    fields.Fields[Word(random) + i] = RandomValue(random, depth + 1);
                }

                return fields;
            case "google.protobuf.ListValue":
                var list = new ListValue();
                for (int i = random.Next(4); i > 0; i--)
                {
                    list.Values.Add(RandomValue(random, depth + 1));
                }

                return list;
            case "google.protobuf.FieldMask":
                var mask = new FieldMask();
                for (int i = random.Next(3); i > 0; i--)
                {
                    mask.Paths.Add(Paths[random.Next(Paths.Length)]);
                }

                return mask;
            case "google.protobuf.Any":
                MessageDescriptor inner = new[] { Timestamp.Descriptor, Int64Value.Descriptor, Struct.Descriptor, anyTypes.Find("tool.v1.Money")! }[random.Next(4)];
                return Any.Pack(depth > 2 ? new Empty() : Create(inner, random, anyTypes, depth + 1));
        }

        foreach (FieldDescriptor field in type.Fields.InDeclarationOrder())
        {
            if (random.Next(3) == 0 || (depth > 2 && field.FieldType is FieldType.Message or FieldType.Group))
            {
                continue; // not set
            }

            if (field.IsMap)
            {
                var map = (IDictionary)field.Accessor.GetValue(message);
                FieldDescriptor key = field.MessageType.FindFieldByNumber(1);
                FieldDescriptor value = field.MessageType.FindFieldByNumber(2);
                for (int i = random.Next(4); i > 0; i--)
                {
                    map[Scalar(key, random, anyTypes, depth)] = Scalar(value, random, anyTypes, depth);
                }
            }
            else if (field.IsRepeated)
            {
                var list = (IList)field.Accessor.GetValue(message);
                for (int i = random.Next(5); i > 0; i--)
                {
                    list.Add(Scalar(field, random, anyTypes, depth));
                }
            }
            else if (field.ContainingOneof is { IsSynthetic: false } oneof && oneof.Accessor.GetCaseFieldDescriptor(message) is not null && random.Next(2) == 0)
            {
                continue; // leave the oneof's earlier member set
            }
            else
            {
                field.Accessor.SetValue(message, Scalar(field, random, anyTypes, depth));
            }
        }

        return message;
    }

    private static object Scalar(FieldDescriptor field, Random random, TypeRegistry anyTypes, int depth)
    {
        if (field.FieldType == FieldType.Message && field.MessageType.File.Name == "google/protobuf/wrappers.proto")
        {
            return Scalar(field.MessageType.FindFieldByNumber(1), random, anyTypes, depth); // generated as int?, string...
        }

        bool zero = random.Next(6) == 0; // defaults matter: they are omitted unless the field has presence
        return field.FieldType switch
        {
            FieldType.Double => zero ? 0d : new[] { double.NaN, double.PositiveInfinity, -0.0, 1e-300, 1.5, -123456.789, double.MaxValue, random.NextDouble() * 1e6 }[random.Next(8)],
            FieldType.Float => zero ? 0f : new[] { float.NaN, float.NegativeInfinity, 3.25f, -1e-30f, float.MaxValue, (float)random.NextDouble() }[random.Next(6)],
            FieldType.Int32 or FieldType.SInt32 or FieldType.SFixed32 => zero ? 0 : new[] { int.MinValue, int.MaxValue, -1, random.Next() }[random.Next(4)],
            FieldType.Int64 or FieldType.SInt64 or FieldType.SFixed64 => zero ? 0L : new[] { long.MinValue, long.MaxValue, -1L, random.NextInt64() }[random.Next(4)],
            FieldType.UInt32 or FieldType.Fixed32 => zero ? 0u : new[] { uint.MaxValue, 1u, (uint)random.Next() }[random.Next(3)],
            FieldType.UInt64 or FieldType.Fixed64 => zero ? 0UL : new[] { ulong.MaxValue, 1UL, (ulong)random.NextInt64() }[random.Next(3)],
            FieldType.Bool => !zero && random.Next(2) == 0,
            FieldType.String => zero ? string.Empty : Word(random),
            FieldType.Bytes => zero ? ByteString.Empty : ByteString.CopyFrom(Enumerable.Range(0, random.Next(1, 9)).Select(_ => (byte)random.Next(256)).ToArray()),
            FieldType.Enum => zero ? 0 : new[] { 1, 2, 77 }[random.Next(3)], // 77 is not a value: printed as a number
            FieldType.Message or FieldType.Group => Create(field.MessageType, random, anyTypes, depth + 1),
            _ => throw new NotSupportedException(field.FieldType.ToString()),
        };
    }

    private static Value RandomValue(Random random, int depth) => (depth > 2 ? random.Next(4) : random.Next(6)) switch
    {
        0 => Value.ForNull(),
        1 => Value.ForNumber(new[] { 0, -2.5, 1e21, 42 }[random.Next(4)]),
        2 => Value.ForString(Word(random)),
        3 => Value.ForBool(random.Next(2) == 0),
        4 => Value.ForStruct((Struct)Create(Struct.Descriptor, random, TypeRegistry.Empty, depth + 1)),
        _ => Value.ForList([.. Enumerable.Range(0, random.Next(3)).Select(_ => RandomValue(random, depth + 1))]),
    };

    private static int Nanos(Random random, bool negative) => new[] { 0, 1_000_000, 123_000, 999_999_999, random.Next(1_000_000_000) }[random.Next(5)] * (negative ? -1 : 1);

    private static string Word(Random random) => Words[random.Next(Words.Length)];
}
