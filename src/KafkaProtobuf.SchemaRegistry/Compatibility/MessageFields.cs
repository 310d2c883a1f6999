using System;
using System.Collections.Generic;
using System.Linq;
using Google.Protobuf.Reflection;
using static Google.Protobuf.Reflection.FieldDescriptorProto.Types;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>
/// A message's fields by number, top-level and oneof members alike, and the oneof each member sits in. A proto3
/// <c>optional</c> field's oneof is the compiler's own (synthetic), not one written in the schema: not counted.
/// </summary>
internal sealed class MessageFields
{
    private readonly List<(string Oneof, int Tag)> _members = [];

    private MessageFields(bool proto3) => Proto3 = proto3;

    public bool Proto3 { get; }

    public Dictionary<int, FieldDescriptorProto> ByTag { get; } = [];

    /// <summary>Each oneof member's oneof, by its number.</summary>
    public Dictionary<int, string> OneofOf { get; } = [];

    /// <summary>The oneofs written in the schema, in their order.</summary>
    public List<string> Oneofs { get; } = [];

    public static MessageFields Of(DescriptorProto message, bool proto3)
    {
        var fields = new MessageFields(proto3);
        foreach (FieldDescriptorProto field in message.Field)
        {
            fields.ByTag[field.Number] = field;
            if (field.HasOneofIndex && !field.Proto3Optional && field.OneofIndex < message.OneofDecl.Count)
            {
                string oneof = message.OneofDecl[field.OneofIndex].Name;
                fields.OneofOf[field.Number] = oneof;
                fields._members.Add((oneof, field.Number));
                if (!fields.Oneofs.Contains(oneof, StringComparer.Ordinal))
                {
                    fields.Oneofs.Add(oneof);
                }
            }
        }

        return fields;
    }

    public IEnumerable<int> MembersOf(string oneof) => _members.Where(m => string.Equals(m.Oneof, oneof, StringComparison.Ordinal)).Select(m => m.Tag);

    /// <summary>
    /// The label as the .proto text writes it: none for a proto3 field without one, optional, required, repeated, or
    /// the oneof it sits in; labels are compared only where both fields have one.
    /// </summary>
    public FieldLabel? LabelOf(FieldDescriptorProto field) => field.Label switch
    {
        Label.Repeated => FieldLabel.Repeated,
        Label.Required => FieldLabel.Required,
        _ when OneofOf.ContainsKey(field.Number) => FieldLabel.Oneof,
        _ when field.Proto3Optional || !Proto3 => FieldLabel.Optional,
        _ => null,
    };
}

/// <summary>A field's label as written in .proto text.</summary>
internal enum FieldLabel
{
    Optional,
    Required,
    Repeated,
    Oneof,
}
