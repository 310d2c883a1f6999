using System;
using System.Collections.Generic;
using System.Linq;
using KafkaProtobuf.SchemaRegistry;
using Xunit;
using static KafkaProtobuf.Tests.Registry.Compatibility.ProtoFiles;

namespace KafkaProtobuf.Tests.Registry.Compatibility;

/// <summary>
/// Every difference kind Schema Registry reports for Protobuf, each with the change that makes it, its path and its
/// verdict; the same edit read the other way round where that is a kind of its own. Our own cases, written from the
/// rules (which fields match, which scalars read as each other), not from the registry's test resources.
/// </summary>
public sealed class ProtobufCompatibilityTests
{
    public static TheoryData<string, string, string, string> Changes() => new()
    {
        // name, original body, update body, expected differences ("CODE path", sorted, "|" between)
        { "package", "package a;\nmessage M { int32 x = 1; }", "package b;\nmessage M { int32 x = 1; }", "PACKAGE_CHANGED #/" },
        { "message added", "message M { int32 x = 1; }", "message M { int32 x = 1; }\nmessage Extra { int32 y = 1; }", "MESSAGE_ADDED #/Extra" },
        { "message removed", "message M { int32 x = 1; }\nmessage Extra { int32 y = 1; }", "message M { int32 x = 1; }", "MESSAGE_REMOVED #/Extra" },
        { "messages reordered", "message A { int32 x = 1; }\nmessage B { int32 y = 1; }", "message B { int32 y = 1; }\nmessage A { int32 x = 1; }", "MESSAGE_MOVED #/A|MESSAGE_MOVED #/B" },
        { "nested message removed", "message M { message Inner { int32 x = 1; } }", "message M { }", "MESSAGE_REMOVED #/M/Inner" },
        { "enum added", "message M { int32 x = 1; }", "message M { int32 x = 1; }\nenum Status { UNKNOWN = 0; }", "ENUM_ADDED #/Status" },
        { "enum removed", "message M { int32 x = 1; }\nenum Status { UNKNOWN = 0; }", "message M { int32 x = 1; }", "ENUM_REMOVED #/Status" },
        { "enum constant added", "enum Status { UNKNOWN = 0; }", "enum Status { UNKNOWN = 0; READY = 1; }", "ENUM_CONST_ADDED #/Status/1" },
        { "enum constant renamed", "enum Status { UNKNOWN = 0; READY = 1; }", "enum Status { UNKNOWN = 0; SET = 1; }", "ENUM_CONST_CHANGED #/Status/1" },
        { "enum constant removed", "enum Status { UNKNOWN = 0; READY = 1; }", "enum Status { UNKNOWN = 0; }", "ENUM_CONST_REMOVED #/Status/1" },
        { "nested enum constant removed", "message M { enum Kind { A = 0; B = 1; } }", "message M { enum Kind { A = 0; } }", "ENUM_CONST_REMOVED #/M/Kind/1" },
        { "field added", "message M { int32 x = 1; }", "message M { int32 x = 1; string y = 2; }", "FIELD_ADDED #/M/2" },
        { "field removed", "message M { int32 x = 1; string y = 2; }", "message M { int32 x = 1; }", "FIELD_REMOVED #/M/2" },
        { "field renamed", "message M { int32 x = 1; }", "message M { int32 count = 1; }", "FIELD_NAME_CHANGED #/M/1" },
        { "scalar to message", "message M { int32 x = 1; }\nmessage N { }", "message M { N x = 1; }\nmessage N { }", "FIELD_KIND_CHANGED #/M/1" },
        { "scalar to map", "message M { int32 x = 1; }", "message M { map<string, int32> x = 1; }", "FIELD_KIND_CHANGED #/M/1" },
        { "int32 to sint32", "message M { int32 x = 1; }", "message M { sint32 x = 1; }", "FIELD_SCALAR_KIND_CHANGED #/M/1" },
        { "int32 to fixed32", "message M { int32 x = 1; }", "message M { fixed32 x = 1; }", "FIELD_SCALAR_KIND_CHANGED #/M/1" },
        { "float to double", "message M { float x = 1; }", "message M { double x = 1; }", "FIELD_SCALAR_KIND_CHANGED #/M/1" },
        { "string to int32", "message M { string x = 1; }", "message M { int32 x = 1; }", "FIELD_SCALAR_KIND_CHANGED #/M/1" },
        { "int32 to int64, uint64, bool", "message M { int32 a = 1; int32 b = 2; int32 c = 3; }", "message M { int64 a = 1; uint64 b = 2; bool c = 3; }", string.Empty },
        { "enum to int32", "message M { S x = 1; }\nenum S { A = 0; }", "message M { int32 x = 1; }\nenum S { A = 0; }", string.Empty },
        { "sint32 to sint64, fixed32 to sfixed32, fixed64 to sfixed64, string to bytes", "message M { sint32 a = 1; fixed32 b = 2; fixed64 c = 3; string d = 4; }", "message M { sint64 a = 1; sfixed32 b = 2; sfixed64 c = 3; bytes d = 4; }", string.Empty },
        { "message type renamed", "message M { A x = 1; }\nmessage A { int32 v = 1; }\nmessage B { int32 v = 1; }", "message M { B x = 1; }\nmessage A { int32 v = 1; }\nmessage B { int32 v = 1; }", "FIELD_NAMED_TYPE_CHANGED #/M/1" },
        { "numeric made repeated (proto2)", "syntax = \"proto2\";\nmessage M { optional int32 x = 1; }", "syntax = \"proto2\";\nmessage M { repeated int32 x = 1; }", "FIELD_NUMERIC_LABEL_CHANGED #/M/1" },
        { "numeric optional made repeated (proto3)", "message M { optional int32 x = 1; }", "message M { repeated int32 x = 1; }", "FIELD_NUMERIC_LABEL_CHANGED #/M/1" },
        { "numeric without a label made repeated (proto3: no label to compare)", "message M { int32 x = 1; }", "message M { repeated int32 x = 1; }", string.Empty },
        { "string optional made repeated", "message M { optional string x = 1; }", "message M { repeated string x = 1; }", "FIELD_STRING_OR_BYTES_LABEL_CHANGED #/M/1" },
        { "required field added", "syntax = \"proto2\";\nmessage M { optional int32 x = 1; }", "syntax = \"proto2\";\nmessage M { optional int32 x = 1; required int32 y = 2; }", "REQUIRED_FIELD_ADDED #/M/2" },
        { "required field removed", "syntax = \"proto2\";\nmessage M { optional int32 x = 1; required int32 y = 2; }", "syntax = \"proto2\";\nmessage M { optional int32 x = 1; }", "REQUIRED_FIELD_REMOVED #/M/2" },
        { "oneof added", "message M { int32 x = 1; }", "message M { int32 x = 1; oneof choice { int32 a = 2; } }", "ONEOF_ADDED #/M/choice|ONEOF_FIELD_ADDED #/M/choice/2" },
        { "oneof removed with its fields", "message M { int32 x = 1; oneof choice { int32 a = 2; string b = 3; } }", "message M { int32 x = 1; }", "ONEOF_REMOVED #/M/choice" },
        { "oneof field added", "message M { oneof choice { int32 a = 2; } }", "message M { oneof choice { int32 a = 2; string b = 3; } }", "ONEOF_FIELD_ADDED #/M/choice/3" },
        { "oneof field removed", "message M { oneof choice { int32 a = 2; string b = 3; } }", "message M { oneof choice { int32 a = 2; } }", "ONEOF_FIELD_REMOVED #/M/choice/3" },
        { "oneof field moved to top level", "message M { oneof choice { int32 a = 2; string b = 3; } }", "message M { oneof choice { int32 a = 2; } string b = 3; }", "ONEOF_FIELD_MOVED_TO_TOP_LEVEL #/M/3" },
        { "oneof dissolved", "message M { oneof choice { int32 a = 2; } }", "message M { int32 a = 2; }", "ONEOF_FIELD_MOVED_TO_TOP_LEVEL #/M/2|ONEOF_REMOVED #/M/choice" },
        { "one field into a new oneof", "message M { int32 a = 1; }", "message M { oneof choice { int32 a = 1; } }", "ONEOF_ADDED #/M/choice" },
        { "two fields into a new oneof", "message M { int32 a = 1; int32 b = 2; }", "message M { oneof choice { int32 a = 1; int32 b = 2; } }", "MULTIPLE_FIELDS_MOVED_TO_ONEOF #/M/choice|ONEOF_ADDED #/M/choice" },
        { "a field into an existing oneof", "message M { int32 a = 1; oneof choice { int32 b = 2; } }", "message M { oneof choice { int32 a = 1; int32 b = 2; } }", "FIELD_MOVED_TO_EXISTING_ONEOF #/M/choice" },
        { "oneof renamed", "message M { oneof choice { int32 a = 1; } }", "message M { oneof pick { int32 a = 1; } }", "ONEOF_ADDED #/M/pick|ONEOF_REMOVED #/M/choice" },
        { "type change in a renamed oneof", "message M { oneof choice { int32 a = 1; } }", "message M { oneof pick { string a = 1; } }", "FIELD_SCALAR_KIND_CHANGED #/M/pick/1|ONEOF_ADDED #/M/pick|ONEOF_REMOVED #/M/choice" },
        { "proto3 optional is not a oneof", "message M { int32 a = 1; }", "message M { optional int32 a = 1; }", string.Empty },
        { "a nested type's field changed", "message M { Inner i = 1; message Inner { int32 x = 1; } }", "message M { Inner i = 1; message Inner { string x = 1; } }", "FIELD_NAMED_TYPE_CHANGED #/M/1|FIELD_SCALAR_KIND_CHANGED #/M/Inner/1" },
        { "a referenced type's compatible change", "message M { N n = 1; }\nmessage N { int32 x = 1; }", "message M { N n = 1; }\nmessage N { int32 x = 1; int32 y = 2; }", "FIELD_ADDED #/N/2" },
        { "a recursive type", "message Node { Node next = 1; int32 v = 2; }", "message Node { Node next = 1; string v = 2; }", "FIELD_SCALAR_KIND_CHANGED #/Node/2" },
        { "map value changed", "message M { map<string, int32> m = 1; }", "message M { map<string, string> m = 1; }", "FIELD_SCALAR_KIND_CHANGED #/M/1" },
        { "map key changed", "message M { map<string, int32> m = 1; }", "message M { map<int64, int32> m = 1; }", "FIELD_SCALAR_KIND_CHANGED #/M/1" },
        { "map value widened", "message M { map<string, int32> m = 1; }", "message M { map<string, int64> m = 1; }", string.Empty },
        { "map values' message changed", "message M { map<string, V> m = 1; }\nmessage V { int32 x = 1; }", "message M { map<string, V> m = 1; }\nmessage V { bytes x = 1; }", "FIELD_NAMED_TYPE_CHANGED #/M/1|FIELD_SCALAR_KIND_CHANGED #/V/1" },
        { "a map added beside a message: its entry is no message", "message M { int32 x = 1; }\nmessage N { }", "message M { int32 x = 1; map<string, int32> m = 2; }\nmessage N { }", "FIELD_ADDED #/M/2" },
    };

    [Theory]
    [MemberData(nameof(Changes))]
    public void EachChange_IsTheKindAndPathTheRegistryNames(string change, string original, string update, string expected)
    {
        IReadOnlyList<SchemaDifference> differences = ProtobufCompatibility.Compare(Schema(original), Schema(update));

        Assert.True(
            string.Join("|", differences.Select(d => d.ToString()).OrderBy(d => d, StringComparer.Ordinal)) == expected,
            change + ": expected [" + expected + "], found [" + string.Join("|", differences) + "]");
    }

    [Theory]
    [InlineData(SchemaDifferenceKind.PackageChanged, false)]
    [InlineData(SchemaDifferenceKind.MessageAdded, true)]
    [InlineData(SchemaDifferenceKind.MessageRemoved, false)]
    [InlineData(SchemaDifferenceKind.MessageMoved, true)]
    [InlineData(SchemaDifferenceKind.EnumAdded, true)]
    [InlineData(SchemaDifferenceKind.EnumRemoved, true)]
    [InlineData(SchemaDifferenceKind.EnumConstAdded, true)]
    [InlineData(SchemaDifferenceKind.EnumConstChanged, true)]
    [InlineData(SchemaDifferenceKind.EnumConstRemoved, true)]
    [InlineData(SchemaDifferenceKind.FieldAdded, true)]
    [InlineData(SchemaDifferenceKind.FieldRemoved, true)]
    [InlineData(SchemaDifferenceKind.FieldNameChanged, true)]
    [InlineData(SchemaDifferenceKind.FieldKindChanged, false)]
    [InlineData(SchemaDifferenceKind.FieldScalarKindChanged, false)]
    [InlineData(SchemaDifferenceKind.FieldNamedTypeChanged, false)]
    [InlineData(SchemaDifferenceKind.FieldNumericLabelChanged, false)]
    [InlineData(SchemaDifferenceKind.FieldStringOrBytesLabelChanged, true)]
    [InlineData(SchemaDifferenceKind.RequiredFieldAdded, false)]
    [InlineData(SchemaDifferenceKind.RequiredFieldRemoved, false)]
    [InlineData(SchemaDifferenceKind.OneofAdded, true)]
    [InlineData(SchemaDifferenceKind.OneofRemoved, true)]
    [InlineData(SchemaDifferenceKind.OneofFieldAdded, true)]
    [InlineData(SchemaDifferenceKind.OneofFieldRemoved, false)]
    [InlineData(SchemaDifferenceKind.OneofFieldMovedToTopLevel, true)]
    [InlineData(SchemaDifferenceKind.MultipleFieldsMovedToOneof, false)]
    [InlineData(SchemaDifferenceKind.FieldMovedToExistingOneof, false)]
    public void EachKind_HasTheRegistrysVerdict_AndASentenceNamingItsPath(SchemaDifferenceKind kind, bool compatible)
    {
        var difference = new SchemaDifference(kind, "#/M/7");

        Assert.Equal(compatible, difference.IsCompatible);
        Assert.Matches("^[A-Z_]+$", difference.Code);
        Assert.Equal(kind.ToString(), ToPascal(difference.Code));
        Assert.EndsWith(".", difference.Description, StringComparison.Ordinal);
        Assert.True(kind == SchemaDifferenceKind.PackageChanged || difference.Description.Contains("'#/M/7'", StringComparison.Ordinal), difference.Description);
    }

    [Fact]
    public void EveryKind_IsInTheVerdictTable()
    {
        Assert.Equal(26, Enum.GetValues<SchemaDifferenceKind>().Length);
    }

    [Fact]
    public void AReferencedFilesChange_IsFoundThroughTheFieldThatNamesIt()
    {
        const string Dependency = "syntax = \"proto3\";\npackage shared;\nmessage Money { int64 units = 1; }";
        const string Changed = "syntax = \"proto3\";\npackage shared;\nmessage Money { string units = 1; }";
        const string Order = "syntax = \"proto3\";\npackage orders;\nimport \"money.proto\";\nmessage Order { shared.Money total = 1; }";

        IReadOnlyList<SchemaDifference> differences = ProtobufCompatibility.Compare(
            Schema(("money.proto", Dependency), ("order.proto", Order)),
            Schema(("money.proto", Changed), ("order.proto", Order)));

        Assert.Equal(["FIELD_NAMED_TYPE_CHANGED #/Order/1", "FIELD_SCALAR_KIND_CHANGED #/Money/1"], differences.Select(d => d.ToString()).OrderBy(d => d, StringComparer.Ordinal));
    }

    [Fact]
    public void AGeneratedTypesFile_ComparedWithItself_HasNoDifference()
    {
        ProtoSchema schema = ProtoSchema.Of(Vectors.Nesting.V1.Order.Descriptor.File);

        Assert.Empty(ProtobufCompatibility.Compare(schema, schema));
        Assert.NotEmpty(schema.Dependencies.Concat([schema.File]));
    }

    private static string ToPascal(string code) => string.Concat(code.Split('_').Select(w => w[0] + w.Substring(1).ToLowerInvariant()));
}
