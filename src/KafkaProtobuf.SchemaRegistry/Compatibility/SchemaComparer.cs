using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using Google.Protobuf.Reflection;
using static Google.Protobuf.Reflection.FieldDescriptorProto.Types;
using Type = Google.Protobuf.Reflection.FieldDescriptorProto.Types.Type;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>
/// Walks an original and an update schema side by side and notes each difference with Schema Registry's kind and path:
/// messages and enums by name, fields by number across top-level fields and oneofs, message-typed fields by the type's
/// name without its package, recursing into it (across references too), map fields as their key and value.
/// </summary>
internal sealed class SchemaComparer
{
    private readonly TypeTable _original;
    private readonly TypeTable _update;
    private readonly Walk _walk; // shared by the whole comparison, sub-walks included
    private readonly List<string> _path;
    private readonly List<SchemaDifference> _found = [];
    private readonly bool _proto3Before; // the syntax of the files whose declarations are compared
    private readonly bool _proto3After;

    private SchemaComparer(TypeTable original, TypeTable update, Walk walk, IEnumerable<string> path, bool proto3Before, bool proto3After)
    {
        _original = original;
        _update = update;
        _walk = walk;
        _path = [.. path];
        _proto3Before = proto3Before;
        _proto3After = proto3After;
    }

    /// <summary>What <paramref name="update"/> changed in <paramref name="original"/>, each difference once, in the order found.</summary>
    public static IReadOnlyList<SchemaDifference> Compare(ProtoSchema original, ProtoSchema update)
    {
        var comparer = new SchemaComparer(original.Types, update.Types, new Walk(), [], TypeTable.IsProto3(original.File), TypeTable.IsProto3(update.File));
        if (!string.Equals(original.File.Package, update.File.Package, StringComparison.Ordinal))
        {
            comparer.Note(SchemaDifferenceKind.PackageChanged);
        }

        comparer.CompareTypes(original.File.MessageType, original.File.EnumType, update.File.MessageType, update.File.EnumType);
        return comparer._found.Distinct().ToList();
    }

    private void Note(SchemaDifferenceKind kind) => _found.Add(new SchemaDifference(kind, "#/" + string.Join("/", _path)));

    private void Note(SchemaDifferenceKind kind, params string[] below)
    {
        _path.AddRange(below);
        Note(kind);
        _path.RemoveRange(_path.Count - below.Length, below.Length);
    }

    private void In(string segment, Action compare)
    {
        _path.Add(segment);
        try
        {
            compare();
        }
        finally
        {
            _path.RemoveAt(_path.Count - 1);
        }
    }

    /// <summary>Messages (map entries aside) and enums declared side by side: by name; a message's place among its siblings too.</summary>
    private void CompareTypes(IList<DescriptorProto> originalMessages, IList<EnumDescriptorProto> originalEnums, IList<DescriptorProto> updateMessages, IList<EnumDescriptorProto> updateEnums)
    {
        Dictionary<string, (DescriptorProto Message, int Index)> before = Messages(originalMessages);
        Dictionary<string, (DescriptorProto Message, int Index)> after = Messages(updateMessages);
        foreach (string name in InOrder(originalMessages.Where(m => !IsMapEntry(m)).Select(m => m.Name), updateMessages.Where(m => !IsMapEntry(m)).Select(m => m.Name)))
        {
            In(name, () =>
            {
                if (!after.TryGetValue(name, out var updated))
                {
                    Note(SchemaDifferenceKind.MessageRemoved);
                }
                else if (!before.TryGetValue(name, out var kept))
                {
                    Note(SchemaDifferenceKind.MessageAdded);
                }
                else
                {
                    CompareMessage(kept.Message, updated.Message);
                    if (kept.Index != updated.Index)
                    {
                        Note(SchemaDifferenceKind.MessageMoved); // records carry indexes of their writer's schema
                    }
                }
            });
        }

        var enumsBefore = originalEnums.GroupBy(e => e.Name, StringComparer.Ordinal).ToDictionary(g => g.Key, g => g.Last(), StringComparer.Ordinal);
        var enumsAfter = updateEnums.GroupBy(e => e.Name, StringComparer.Ordinal).ToDictionary(g => g.Key, g => g.Last(), StringComparer.Ordinal);
        foreach (string name in InOrder(originalEnums.Select(e => e.Name), updateEnums.Select(e => e.Name)))
        {
            In(name, () =>
            {
                if (!enumsAfter.TryGetValue(name, out EnumDescriptorProto? updated))
                {
                    Note(SchemaDifferenceKind.EnumRemoved);
                }
                else if (!enumsBefore.TryGetValue(name, out EnumDescriptorProto? kept))
                {
                    Note(SchemaDifferenceKind.EnumAdded);
                }
                else
                {
                    CompareEnum(kept, updated);
                }
            });
        }
    }

    private void CompareEnum(EnumDescriptorProto original, EnumDescriptorProto update)
    {
        var before = new Dictionary<int, string>();
        foreach (EnumValueDescriptorProto value in original.Value)
        {
            before[value.Number] = value.Name;
        }

        var after = new Dictionary<int, string>();
        foreach (EnumValueDescriptorProto value in update.Value)
        {
            after[value.Number] = value.Name;
        }

        foreach (int number in before.Keys.Union(after.Keys).OrderBy(n => n))
        {
            string at = number.ToString(CultureInfo.InvariantCulture);
            if (!after.TryGetValue(number, out string? name))
            {
                Note(SchemaDifferenceKind.EnumConstRemoved, at);
            }
            else if (!before.TryGetValue(number, out string? was))
            {
                Note(SchemaDifferenceKind.EnumConstAdded, at);
            }
            else if (!string.Equals(was, name, StringComparison.Ordinal))
            {
                Note(SchemaDifferenceKind.EnumConstChanged, at);
            }
        }
    }

    /// <summary>A message's fields by number wherever they sit (top level or a oneof), its oneofs, then its nested types.</summary>
    private void CompareMessage(DescriptorProto original, DescriptorProto update)
    {
        if (++_walk.Depth > ProtobufCompatibility.MaxTypeDepth)
        {
            throw new ArgumentException(
                "The schemas' message types nest, or name each other through fields, deeper than " + ProtobufCompatibility.MaxTypeDepth + " (at #/" + BoundedText.Cut(string.Join("/", _path), 200) + "): not compared.");
        }

        try
        {
            if (_walk.Comparing.Any(m => ReferenceEquals(m, original)))
            {
                _walk.CycleSkips++; // a recursive type: its fields are being compared further up
            }
            else
            {
                _walk.Comparing.Add(original);
                try
                {
                    CompareFields(original, update);
                }
                finally
                {
                    _walk.Comparing.RemoveAt(_walk.Comparing.Count - 1);
                }
            }

            CompareTypes(original.NestedType, original.EnumType, update.NestedType, update.EnumType);
        }
        finally
        {
            _walk.Depth--;
        }
    }

    private void CompareFields(DescriptorProto original, DescriptorProto update)
    {
        MessageFields before = MessageFields.Of(original, _proto3Before);
        MessageFields after = MessageFields.Of(update, _proto3After);

        // A oneof gone with every one of its fields is a deletion, compatible; its fields are not reported one by one.
        var deletedWhole = new HashSet<string>(
            before.Oneofs.Where(o => !after.Oneofs.Contains(o) && before.MembersOf(o).All(tag => !after.ByTag.ContainsKey(tag))), StringComparer.Ordinal);

        // Fields that were independent and are now in one oneof: setting one now clears the others.
        foreach (string oneof in after.Oneofs)
        {
            var origins = new HashSet<string>(StringComparer.Ordinal);
            int fromTopLevel = 0;
            foreach (int tag in after.MembersOf(oneof))
            {
                if (before.OneofOf.TryGetValue(tag, out string? was))
                {
                    origins.Add("oneof " + was);
                }
                else if (before.ByTag.ContainsKey(tag))
                {
                    origins.Add("field " + tag.ToString(CultureInfo.InvariantCulture));
                    fromTopLevel++;
                }
            }

            if (origins.Count > 1)
            {
                Note(fromTopLevel > 1 ? SchemaDifferenceKind.MultipleFieldsMovedToOneof : SchemaDifferenceKind.FieldMovedToExistingOneof, oneof);
            }
        }

        foreach (string oneof in before.Oneofs.Union(after.Oneofs).OrderBy(o => o, StringComparer.Ordinal))
        {
            if (!after.Oneofs.Contains(oneof))
            {
                Note(SchemaDifferenceKind.OneofRemoved, oneof);
            }
            else if (!before.Oneofs.Contains(oneof))
            {
                Note(SchemaDifferenceKind.OneofAdded, oneof);
            }
        }

        foreach (int tag in before.ByTag.Keys.Union(after.ByTag.Keys).OrderBy(t => t))
        {
            string at = tag.ToString(CultureInfo.InvariantCulture);
            before.ByTag.TryGetValue(tag, out FieldDescriptorProto? was);
            after.ByTag.TryGetValue(tag, out FieldDescriptorProto? now);
            before.OneofOf.TryGetValue(tag, out string? wasIn);
            after.OneofOf.TryGetValue(tag, out string? nowIn);
            if (now is null)
            {
                if (wasIn is null)
                {
                    Note(was!.Label == Label.Required ? SchemaDifferenceKind.RequiredFieldRemoved : SchemaDifferenceKind.FieldRemoved, at);
                }
                else if (!deletedWhole.Contains(wasIn))
                {
                    Note(SchemaDifferenceKind.OneofFieldRemoved, wasIn, at);
                }
            }
            else if (was is null)
            {
                if (nowIn is null)
                {
                    Note(now.Label == Label.Required ? SchemaDifferenceKind.RequiredFieldAdded : SchemaDifferenceKind.FieldAdded, at);
                }
                else
                {
                    Note(SchemaDifferenceKind.OneofFieldAdded, nowIn, at);
                }
            }
            else
            {
                if (wasIn is not null && nowIn is null)
                {
                    Note(SchemaDifferenceKind.OneofFieldMovedToTopLevel, at);
                }

                FieldDescriptorProto wasField = was;
                FieldDescriptorProto nowField = now;
                if (nowIn is null)
                {
                    In(at, () => CompareField(wasField, nowField, before, after));
                }
                else
                {
                    In(nowIn, () => In(at, () => CompareField(wasField, nowField, before, after)));
                }
            }
        }
    }

    private void CompareField(FieldDescriptorProto original, FieldDescriptorProto update, MessageFields before, MessageFields after)
    {
        if (!string.Equals(original.Name, update.Name, StringComparison.Ordinal))
        {
            Note(SchemaDifferenceKind.FieldNameChanged);
        }

        CompareFieldTypes(before.LabelOf(original), after.LabelOf(update), original.Type, original.TypeName, update.Type, update.TypeName);
    }

    private void CompareFieldTypes(FieldLabel? originalLabel, FieldLabel? updateLabel, Type originalType, string originalName, Type updateType, string updateName)
    {
        FieldKind before = KindOf(originalType, originalName, _original, out DeclaredType? originalDeclared);
        FieldKind after = KindOf(updateType, updateName, _update, out DeclaredType? updateDeclared);
        if (before != after)
        {
            Note(SchemaDifferenceKind.FieldKindChanged);
            return;
        }

        switch (before)
        {
            case FieldKind.Scalar:
                ScalarGroup was = GroupOf(originalType);
                ScalarGroup now = GroupOf(updateType);
                if (was != now)
                {
                    Note(SchemaDifferenceKind.FieldScalarKindChanged);
                }
                else if (originalLabel is { } a && updateLabel is { } b && a != b)
                {
                    Note(was == ScalarGroup.StringOrBytes ? SchemaDifferenceKind.FieldStringOrBytesLabelChanged : SchemaDifferenceKind.FieldNumericLabelChanged);
                }

                break;
            case FieldKind.Map:
                FieldDescriptorProto[] originalEntry = [.. originalDeclared!.Message!.Field];
                FieldDescriptorProto[] updateEntry = [.. updateDeclared!.Message!.Field];
                CompareEntryPart(originalEntry, updateEntry, 1);
                CompareEntryPart(originalEntry, updateEntry, 2);
                break;
            default:
                CompareMessageTypes(originalName, originalDeclared, updateName, updateDeclared);
                break;
        }
    }

    private void CompareEntryPart(FieldDescriptorProto[] original, FieldDescriptorProto[] update, int number)
    {
        FieldDescriptorProto? was = original.FirstOrDefault(f => f.Number == number);
        FieldDescriptorProto? now = update.FirstOrDefault(f => f.Number == number);
        if (was is not null && now is not null)
        {
            CompareFieldTypes(null, null, was.Type, was.TypeName, now.Type, now.TypeName);
        }
    }

    /// <summary>By the type's name without its package; the same name: the types compared in their own right, their differences reported at their own paths.</summary>
    private void CompareMessageTypes(string originalName, DeclaredType? original, string updateName, DeclaredType? update)
    {
        if (original?.Message is null || update?.Message is null)
        {
            if (!string.Equals(originalName, updateName, StringComparison.Ordinal))
            {
                Note(SchemaDifferenceKind.FieldNamedTypeChanged); // not declared where it can be found: the names are all there is
            }

            return;
        }

        string localName = original.LocalName(originalName);
        if (!string.Equals(localName, update.LocalName(updateName), StringComparison.Ordinal))
        {
            Note(SchemaDifferenceKind.FieldNamedTypeChanged);
            return;
        }

        // Walked once per pair of types, however many fields name them: its differences are already among the found.
        (DescriptorProto, DescriptorProto) pair = (original.Message, update.Message);
        if (_walk.Walked.TryGetValue(pair, out bool wasIncompatible))
        {
            if (wasIncompatible)
            {
                Note(SchemaDifferenceKind.FieldNamedTypeChanged);
            }

            return;
        }

        if (original.Referenced && update.Referenced && string.Equals(original.FileName, update.FileName, StringComparison.Ordinal) && original.Message.Equals(update.Message))
        {
            _walk.Walked[pair] = false; // the same referenced declaration on both sides
            return;
        }

        int cycleSkips = _walk.CycleSkips;
        var inner = new SchemaComparer(_original, _update, _walk, localName.Split('.'), original.Proto3, update.Proto3);
        inner.CompareMessage(original.Message, update.Message);
        _found.AddRange(inner._found);
        bool incompatible = inner._found.Any(d => !d.IsCompatible);
        if (_walk.CycleSkips == cycleSkips)
        {
            _walk.Walked[pair] = incompatible; // complete: no recursive type's fields were left to a walk further up
        }

        if (incompatible)
        {
            Note(SchemaDifferenceKind.FieldNamedTypeChanged);
        }
    }

    private static FieldKind KindOf(Type type, string typeName, TypeTable table, out DeclaredType? declared)
    {
        declared = null;
        if (type is not (Type.Message or Type.Group))
        {
            return FieldKind.Scalar; // enums included: on the wire a varint
        }

        declared = table.Find(typeName);
        return declared?.IsMapEntry == true ? FieldKind.Map : FieldKind.Message;
    }

    /// <summary>Scalars whose values read as each other's (protobuf's documented groups), enums with the varints.</summary>
    private static ScalarGroup GroupOf(Type type) => type switch
    {
        Type.Int32 or Type.Int64 or Type.Uint32 or Type.Uint64 or Type.Bool or Type.Enum => ScalarGroup.Varint,
        Type.Sint32 or Type.Sint64 => ScalarGroup.ZigZag,
        Type.String or Type.Bytes => ScalarGroup.StringOrBytes,
        Type.Fixed32 or Type.Sfixed32 => ScalarGroup.Fixed32,
        Type.Fixed64 or Type.Sfixed64 => ScalarGroup.Fixed64,
        Type.Float => ScalarGroup.Float,
        Type.Double => ScalarGroup.Double,
        _ => ScalarGroup.Other,
    };

    private static bool IsMapEntry(DescriptorProto message) => message.Options?.MapEntry == true;

    private static Dictionary<string, (DescriptorProto Message, int Index)> Messages(IList<DescriptorProto> messages)
    {
        var byName = new Dictionary<string, (DescriptorProto, int)>(StringComparer.Ordinal);
        int index = 0;
        foreach (DescriptorProto message in messages)
        {
            if (!IsMapEntry(message))
            {
                byName[message.Name] = (message, index++);
            }
        }

        return byName;
    }

    private static List<string> InOrder(IEnumerable<string> original, IEnumerable<string> update) => original.Concat(update).Distinct(StringComparer.Ordinal).ToList();

    /// <summary>What one comparison shares across its sub-walks.</summary>
    private sealed class Walk
    {
        /// <summary>Original messages whose fields are being compared: a recursive type stops here.</summary>
        public List<DescriptorProto> Comparing { get; } = [];

        /// <summary>Pairs of message types walked to the end, and whether they differ incompatibly.</summary>
        public Dictionary<(DescriptorProto, DescriptorProto), bool> Walked { get; } = new(ByReference.Instance);

        /// <summary>How often a recursive type's fields were left to a walk further up (a walk that met one is not kept).</summary>
        public int CycleSkips { get; set; }

        /// <summary>Messages deep, nested or named through fields.</summary>
        public int Depth { get; set; }
    }

    private sealed class ByReference : IEqualityComparer<(DescriptorProto, DescriptorProto)>
    {
        public static readonly ByReference Instance = new();

        public bool Equals((DescriptorProto, DescriptorProto) x, (DescriptorProto, DescriptorProto) y) => ReferenceEquals(x.Item1, y.Item1) && ReferenceEquals(x.Item2, y.Item2);

        public int GetHashCode((DescriptorProto, DescriptorProto) pair) =>
            (System.Runtime.CompilerServices.RuntimeHelpers.GetHashCode(pair.Item1) * 397) ^ System.Runtime.CompilerServices.RuntimeHelpers.GetHashCode(pair.Item2);
    }

    private enum FieldKind
    {
        Scalar,
        Message,
        Map,
    }

    private enum ScalarGroup
    {
        Varint,
        ZigZag,
        StringOrBytes,
        Fixed32,
        Fixed64,
        Float,
        Double,
        Other,
    }
}
